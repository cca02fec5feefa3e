/** How a retry waits: exponential from `baseMs`, capped at `maxMs`, with ±`jitter` (a fraction) of noise. */
export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  /** 0.2 means each delay is multiplied by a random factor in [0.8, 1.2]. Default 0.2; 0 for exact delays. */
  jitter?: number;
}

/**
 * The SDK's one backoff: the wait before retry number `attempt` (0 for the first retry) is
 * `min(maxMs, baseMs · 2^attempt)`, jittered. Every retry of the SDK waits by it: config lookups, the run
 * re-join, payment reports, and the socket's reconnects (a dropped connection and a refused handshake alike).
 *
 * @example
 * backoffDelay(0, { baseMs: 250 }) // ≈ 250 ms; backoffDelay(3, { baseMs: 250 }) ≈ 2 s
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 1000;
  const max = options.maxMs ?? 30_000;
  const jitter = options.jitter ?? 0.2;
  const exact = Math.min(max, base * 2 ** Math.max(0, attempt));
  return jitter === 0 ? exact : exact * (1 - jitter + Math.random() * 2 * jitter);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}
