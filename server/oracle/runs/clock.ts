/**
 * Time as the runs layer reads it and waits on it: the system's, or a virtual one in tests (so that a test of a
 * retry or a lease timer advances time itself instead of sleeping).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
  /** Calls `fn` every `ms` until the returned function is called; never keeps the process alive. */
  every(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};
