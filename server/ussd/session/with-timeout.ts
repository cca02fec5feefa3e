/** Raised when a store operation does not settle in time (e.g. Redis unreachable, commands queued). */
export class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
}

/**
 * Rejects with {@link StoreTimeoutError} when `promise` has not settled after `ms`. A request must get its
 * `END Service temporarily unavailable…` reply while the telecom gateway is still waiting, instead of
 * hanging on a client that queues commands until its server returns.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
