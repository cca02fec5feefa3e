import { useInfiniteQuery, useMutation, type InfiniteData } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import type { ChatSession, SessionPage } from '../../../contracts/oracle.js';
import { oracleRoutes as oracleContract } from '../http/routes.js';
import { resolveOracle, retryOptions } from '../config/config-queries.js';
import { useOraclesContext } from '../context/oracles-context.js';
import { oracleKeys } from '../query/keys.js';
import type { OracleOverrides } from '../types.js';
import { useOraclesConfig } from './use-oracles-config.js';

/** Options of {@link useOracleSessions}. */
export interface UseOracleSessionsOptions {
  /** Sessions per page (default 20). */
  pageSize?: number;
  /** `{ baseUrl, wsUrl }` instead of the resolved addresses (or set them once on the provider). */
  overrides?: OracleOverrides;
}

/** What {@link useOracleSessions} returns. */
export interface UseOracleSessionsResult {
  /** The loaded sessions, newest first (every loaded page, in order). */
  sessions: ChatSession[];
  total: number;
  /** True until the first page arrives (the oracle's config resolution included). */
  isLoading: boolean;
  /** True once the oracle's config has resolved: `createSession` no longer waits for it. */
  isReady: boolean;
  /** The config resolution's error (naming its step) or the session list's. */
  error: Error | undefined;
  /** Creates a session (waits for the config when it is still resolving; the list refreshes). */
  createSession: (title?: string) => Promise<ChatSession>;
  isCreatingSession: boolean;
  createSessionError: Error | undefined;
  /** Deletes a session and its history (the list refreshes). */
  deleteSession: (sessionId: string) => Promise<void>;
  isDeletingSession: boolean;
  deleteSessionError: Error | undefined;
  /** True when more sessions exist than are loaded. */
  hasNextPage: boolean;
  /** Loads the next page (appended; the loaded pages stay on screen and are not fetched again). */
  fetchNextPage: () => void;
  isFetchingNextPage: boolean;
  refetch: () => Promise<unknown>;
}

/**
 * The user's chat sessions with an oracle (spec C5): a TanStack infinite query (`oracleKeys.sessionList`),
 * create and delete as mutations. Creating or deleting refreshes the list, and so does the end of every chat
 * turn.
 *
 * @example
 * const { sessions, createSession, isReady } = useOracleSessions(oracleDid);
 * const onNew = async () => setSessionId((await createSession()).sessionId);
 */
export function useOracleSessions(
  oracleDid: string,
  options: UseOracleSessionsOptions = {},
): UseOracleSessionsResult {
  const ctx = useOraclesContext();
  const { queryClient, wallet } = ctx;
  const config = useOraclesConfig(oracleDid, options.overrides);
  const { apiUrl } = config;
  const limit = options.pageSize ?? 20;
  const query = useInfiniteQuery(
    {
      queryKey: oracleKeys.sessionList(oracleDid, wallet.did, limit),
      queryFn: ({ pageParam, signal }) =>
        ctx
          .http(oracleDid, apiUrl ?? '')
          .call(oracleContract.listSessions, { query: { limit, offset: pageParam }, signal }),
      initialPageParam: 0,
      getNextPageParam: (last: SessionPage, pages: SessionPage[]) => {
        const loaded = pages.reduce((n, p) => n + p.sessions.length, 0);
        return loaded < last.total && last.sessions.length > 0 ? loaded : undefined;
      },
      enabled: apiUrl !== undefined && oracleDid !== '',
      retry: retryOptions(ctx.retry).retry,
      retryDelay: retryOptions(ctx.retry).retryDelay,
    },
    queryClient,
  );

  const invalidate = useCallback(
    () => queryClient.invalidateQueries({ queryKey: oracleKeys.sessions(oracleDid) }),
    [queryClient, oracleDid],
  );
  const { overrides } = options;
  const create = useMutation(
    {
      mutationFn: async (title?: string) => {
        const { http } = await resolveOracle(ctx, oracleDid, overrides);
        return http.call(oracleContract.createSession, { body: title === undefined ? {} : { title } });
      },
      onSuccess: invalidate,
    },
    queryClient,
  );
  const remove = useMutation(
    {
      mutationFn: async (sessionId: string) => {
        const { http } = await resolveOracle(ctx, oracleDid, overrides);
        await http.call(oracleContract.deleteSession, { params: { sessionId } });
      },
      onSuccess: invalidate,
    },
    queryClient,
  );

  const data: InfiniteData<SessionPage> | undefined = query.data;
  // One array per list (the query's data is structurally shared): an effect on `sessions` runs when the list
  // changes, not on every render.
  const sessions = useMemo(() => data?.pages.flatMap((p) => p.sessions) ?? [], [data]);
  const total = data?.pages.at(-1)?.total ?? 0;
  const { fetchNextPage, hasNextPage, isFetchingNextPage, refetch } = query;
  const fetchNext = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  // No oracle named (`oracleDid` empty): idle, not loading.
  const error = config.error ?? query.error ?? undefined;
  const isLoading = oracleDid !== '' && data === undefined && error === undefined;
  const isReady = config.isConfigReady;
  const createSessionError = create.error ?? undefined;
  const deleteSessionError = remove.error ?? undefined;
  // `mutateAsync` of a TanStack mutation keeps its identity; the result is one object until a field changes.
  const { mutateAsync: createSession, isPending: isCreatingSession } = create;
  const { mutateAsync: deleteSession, isPending: isDeletingSession } = remove;
  return useMemo(
    () => ({
      sessions,
      total,
      isLoading,
      isReady,
      error,
      createSession,
      isCreatingSession,
      createSessionError,
      deleteSession,
      isDeletingSession,
      deleteSessionError,
      hasNextPage,
      fetchNextPage: fetchNext,
      isFetchingNextPage,
      refetch,
    }),
    [
      sessions,
      total,
      isLoading,
      isReady,
      error,
      createSession,
      isCreatingSession,
      createSessionError,
      deleteSession,
      isDeletingSession,
      deleteSessionError,
      hasNextPage,
      fetchNext,
      isFetchingNextPage,
      refetch,
    ],
  );
}
