import type { SessionStore } from '../session-store.js';

/** Options of {@link createMemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** How often expired entries are swept (they are also dropped lazily on read). Default 15 s. */
  sweepIntervalMs?: number;
  /** Clock in milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

interface Entry {
  /** The value as JSON, so callers never share a mutable object with the store (as with Redis). */
  json: string;
  expiresAt: number;
}

/**
 * In-process session store: the embedded default for a single instance. Each entry expires `ttlSeconds`
 * after its last `set`; expired entries are dropped on read and swept by an unref'd timer so memory does
 * not grow with abandoned sessions.
 */
export function createMemorySessionStore<T>(options: MemorySessionStoreOptions = {}): SessionStore<T> {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  const sweep = (): void => {
    const t = now();
    for (const [id, entry] of entries) if (entry.expiresAt <= t) entries.delete(id);
  };
  const timer = setInterval(sweep, options.sweepIntervalMs ?? 15_000);
  timer.unref();

  return {
    get(sessionId) {
      const entry = entries.get(sessionId);
      if (entry === undefined) return Promise.resolve(undefined);
      if (entry.expiresAt <= now()) {
        entries.delete(sessionId);
        return Promise.resolve(undefined);
      }
      return Promise.resolve(JSON.parse(entry.json) as T);
    },
    set(sessionId, value, ttlSeconds) {
      entries.set(sessionId, { json: JSON.stringify(value), expiresAt: now() + ttlSeconds * 1000 });
      return Promise.resolve();
    },
    delete(sessionId) {
      entries.delete(sessionId);
      return Promise.resolve();
    },
    list() {
      sweep();
      return Promise.resolve([...entries.keys()].sort());
    },
    close() {
      clearInterval(timer);
      return Promise.resolve();
    },
  };
}
