import type { PGlite } from '@electric-sql/pglite';

/** The search path each handle of one PGlite instance last set; a handle switches it back before it runs. */
const searchPaths = new WeakMap<PGlite, { current: string | undefined; lock: Promise<void> }>();

/**
 * A view of a PGlite instance for one handle: every query, and every transaction as a whole, runs alone
 * on the instance (PGlite has a single session) after setting the handle's search path if another handle
 * changed it. Closing the view closes the instance only when it is not shared.
 */
export function inSchema(pglite: PGlite, schema: string | undefined, shared: boolean): PGlite {
  const path = schema === undefined ? 'public' : `"${schema.replace(/"/g, '""')}"`;
  let state = searchPaths.get(pglite);
  if (state === undefined) {
    state = { current: undefined, lock: Promise.resolve() };
    searchPaths.set(pglite, state);
  }
  const s = state;
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = s.lock.then(async () => {
      if (s.current !== path) {
        await pglite.query(`set search_path to ${path}`);
        s.current = path;
      }
      return work();
    });
    s.lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };
  let closed = false;
  return new Proxy(pglite, {
    get(target, key) {
      if (key === 'query') {
        return (...args: Parameters<PGlite['query']>) => exclusive(() => target.query(...args));
      }
      if (key === 'transaction') {
        return (...args: Parameters<PGlite['transaction']>) => exclusive(() => target.transaction(...args));
      }
      if (key === 'close') {
        return async () => {
          closed = true;
          if (!shared) await target.close();
        };
      }
      if (key === 'closed') return closed || target.closed;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
