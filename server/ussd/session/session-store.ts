/**
 * Where USSD sessions live between requests. Two real implementations: in-process (default, expired
 * entries swept) and Redis (REDIS_URL, shared by every instance behind a load balancer). Values are plain
 * JSON-serialisable objects; the store never interprets them. A value given to `set` or returned by `get`
 * is not to be changed: the Redis store works on copies, the in-process store freezes what it holds.
 */
export interface SessionStore<T> {
  /** The session, or undefined when it never existed or has expired. */
  get(sessionId: string): Promise<T | undefined>;
  /** Creates or replaces the session and (re)starts its inactivity timer of `ttlSeconds`. */
  set(sessionId: string, value: T, ttlSeconds: number): Promise<void>;
  /** Removes the session at once (an `END` reply). Removing an unknown session is not an error. */
  delete(sessionId: string): Promise<void>;
  /** Ids of all sessions that have not expired, sorted. */
  list(): Promise<string[]>;
  /** Stops timers; does not close a Redis connection it was given. */
  close(): Promise<void>;
}
