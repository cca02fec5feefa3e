/** Runs async work one at a time per key; different keys run concurrently. */
export interface KeyedMutex {
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

/**
 * An in-process keyed mutex. The USSD flow uses it so that a telecom gateway's retry arriving while the
 * original request is still running waits for it, then sees the saved session and gets the same reply,
 * instead of running the same input twice. (Across instances a retry lands after the first request saved
 * its session in the usual case; see the report on what is not covered.)
 */
export function createKeyedMutex(): KeyedMutex {
  const tails = new Map<string, Promise<void>>();
  return {
    async run(key, work) {
      const previous = tails.get(key);
      let release!: () => void;
      const done = new Promise<void>((resolve) => (release = resolve));
      const tail = previous === undefined ? done : previous.then(() => done);
      tails.set(key, tail);
      try {
        if (previous !== undefined) await previous;
        return await work();
      } finally {
        release();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
  };
}
