import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react';
import type { QueryCache, QueryKey, QueryState } from './query-cache.js';

/** Result of {@link useQuery}. */
export interface UseQueryResult<T> extends QueryState<T> {
  /** True until the first fetch settles (while enabled). */
  isLoading: boolean;
  refetch: () => Promise<T | undefined>;
}

/** Reads a key of the provider's {@link QueryCache}, fetching it when enabled and not yet fetched. */
export function useQuery<T>(
  cache: QueryCache,
  key: QueryKey,
  fetcher: () => Promise<T>,
  enabled = true,
): UseQueryResult<T> {
  const k = JSON.stringify(key);
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;
  const stableKey = useRef(key);
  if (JSON.stringify(stableKey.current) !== k) stableKey.current = key;

  const subscribe = useCallback((cb: () => void) => cache.subscribe(stableKey.current, cb), [cache, k]);
  const snapshot = useCallback(() => cache.get<T>(stableKey.current), [cache, k]);
  const state = useSyncExternalStore(subscribe, snapshot, snapshot);

  useEffect(() => {
    if (enabled) void cache.fetch(stableKey.current, () => fetcherRef.current());
  }, [cache, k, enabled]);

  const refetch = useCallback(
    () => cache.fetch(stableKey.current, () => fetcherRef.current(), true),
    [cache, k],
  );
  return { ...state, isLoading: enabled && !state.isSettled, refetch };
}
