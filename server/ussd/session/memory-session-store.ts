import type { SessionStore } from './session-store.js';

/** Options of {@link createMemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** How often expired entries are swept (they are also dropped lazily on read). Default 15 s. */
  sweepIntervalMs?: number;
  /** Clock in milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

interface Entry<T> {
  /** Frozen, all the way down: a caller can neither change what is stored nor what it loaded from here. */
  value: T;
  expiresAt: number;
}

/** Freezes a JSON-like value and everything in it; returns it. */
function deepFreeze<T>(value: T): T {
  // Primitives and null count as frozen (Object.isFrozen), so this test alone stops the walk.
  if (!Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value as object)) deepFreeze(item);
  }
  return value;
}

/**
 * In-process session store: the embedded default for a single instance. Each entry expires `ttlSeconds`
 * after its last `set`; expired entries are dropped on read and swept by an unref'd timer so memory does
 * not grow with abandoned sessions.
 *
 * Values are kept as given and frozen, not copied: a JSON round trip on every `get` and `set` would be a
 * visible share of a request's CPU. Changing a stored or loaded value throws (ESM is strict mode) instead
 * of silently diverging from the Redis store, which hands out copies.
 */
export function createMemorySessionStore<T>(options: MemorySessionStoreOptions = {}): SessionStore<T> {
  const now = options.now ?? (() => Date.now());
  const entries = new Map<string, Entry<T>>();

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
      return Promise.resolve(entry.value);
    },
    set(sessionId, value, ttlSeconds) {
      entries.set(sessionId, { value: deepFreeze(value), expiresAt: now() + ttlSeconds * 1000 });
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
