/** State of one cached query. */
export interface QueryState<T> {
  data: T | undefined;
  error: Error | undefined;
  /** True while a fetch is in flight. */
  isFetching: boolean;
  /** True once a fetch has settled (with data or an error). */
  isSettled: boolean;
}

interface Entry {
  state: QueryState<unknown>;
  fetcher: (() => Promise<unknown>) | undefined;
  listeners: Set<() => void>;
  /** Bumped by every fetch: a late answer of an older fetch is dropped. */
  generation: number;
}

const EMPTY: QueryState<never> = Object.freeze({
  data: undefined,
  error: undefined,
  isFetching: false,
  isSettled: false,
});

/** The cache key of a query: a tuple, compared by its JSON form. */
export type QueryKey = readonly unknown[];

const hash = (key: QueryKey): string => JSON.stringify(key);

/**
 * The provider's one query cache (the small part of TanStack Query this library needs): results by key,
 * shared by every hook that asks for the same key, de-duplicated fetches, and invalidation by key prefix.
 */
export class QueryCache {
  readonly #entries = new Map<string, Entry>();

  #entry(key: QueryKey): Entry {
    const k = hash(key);
    let entry = this.#entries.get(k);
    if (!entry) {
      entry = { state: EMPTY, fetcher: undefined, listeners: new Set(), generation: 0 };
      this.#entries.set(k, entry);
    }
    return entry;
  }

  /** The current state of a key (a stable object until it changes). */
  get<T>(key: QueryKey): QueryState<T> {
    return (this.#entries.get(hash(key))?.state ?? EMPTY) as QueryState<T>;
  }

  /** Subscribes to changes of a key. */
  subscribe(key: QueryKey, listener: () => void): () => void {
    const entry = this.#entry(key);
    entry.listeners.add(listener);
    return () => entry.listeners.delete(listener);
  }

  /** Fetches a key unless it already has data or a fetch in flight (`force` fetches anyway). */
  fetch<T>(key: QueryKey, fetcher: () => Promise<T>, force = false): Promise<T | undefined> {
    const entry = this.#entry(key);
    entry.fetcher = fetcher;
    if (!force && (entry.state.isFetching || entry.state.isSettled)) {
      return Promise.resolve(entry.state.data as T | undefined);
    }
    const generation = ++entry.generation;
    this.#set(entry, { ...entry.state, isFetching: true });
    return fetcher().then(
      (data) => {
        if (generation === entry.generation)
          this.#set(entry, { data, error: undefined, isFetching: false, isSettled: true });
        return data;
      },
      (err: unknown) => {
        if (generation === entry.generation)
          this.#set(entry, {
            ...entry.state,
            error: err instanceof Error ? err : new Error(String(err)),
            isFetching: false,
            isSettled: true,
          });
        return undefined;
      },
    );
  }

  /** Sets a key's data directly (after a mutation that returned it). */
  setData<T>(key: QueryKey, update: (old: T | undefined) => T): void {
    const entry = this.#entry(key);
    this.#set(entry, { ...entry.state, data: update(entry.state.data as T | undefined), isSettled: true });
  }

  /** Re-fetches every key that starts with `prefix` and has a fetcher and listeners; forgets the others. */
  invalidate(prefix: QueryKey): Promise<void> {
    const p = hash(prefix).slice(0, -1);
    const pending: Promise<unknown>[] = [];
    for (const [k, entry] of this.#entries) {
      if (!(k === p + ']' || k.startsWith(p + ','))) continue;
      if (entry.fetcher && entry.listeners.size > 0)
        pending.push(this.fetch(JSON.parse(k) as QueryKey, entry.fetcher, true));
      else this.#set(entry, EMPTY);
    }
    return Promise.all(pending).then(() => undefined);
  }

  #set(entry: Entry, state: QueryState<unknown>): void {
    entry.state = state;
    for (const l of [...entry.listeners]) l();
  }
}
