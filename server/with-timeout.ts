/** Raised when a store operation does not settle in time (e.g. Redis unreachable, commands queued). */
export class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
}

/**
 * Rejects with {@link StoreTimeoutError} when `promise` has not settled after `ms`. A request must get its
 * `END Service temporarily unavailable…` reply while the telecom gateway is still waiting, instead of
 * hanging on a client that queues commands until its server returns.
 *
 * The timer gives up only after one more pass of the event loop's poll phase: after a stall of this process
 * (a long garbage collection, a burst of CPU work, a starved core) Node runs due timers before it reads the
 * sockets, so an answer that arrived during the stall would otherwise lose to a timeout it beat.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => reject(new StoreTimeoutError(`${what} timed out after ${ms} ms`)));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    if (immediate !== undefined) clearImmediate(immediate);
  });
}
