import { useCallback, useState } from 'react';
import { oracleContract, type ChatSession, type SessionPage } from '../../../contracts/oracle.js';
import { useOraclesContext } from '../context/oracles-context.js';
import { useQuery } from '../store/use-query.js';
import type { OracleOverrides } from '../types.js';
import { useOracleHttp } from './use-oracle-http.js';
import { useOraclesConfig } from './use-oracles-config.js';

/** What {@link useOracleSessions} returns. */
export interface UseOracleSessionsResult {
  /** The loaded sessions, newest first. */
  sessions: ChatSession[];
  total: number;
  isLoading: boolean;
  error: Error | undefined;
  /** Creates a session (the list refreshes). */
  createSession: (title?: string) => Promise<ChatSession>;
  /** Deletes a session and its history (the list refreshes). */
  deleteSession: (sessionId: string) => Promise<void>;
  /** True when more sessions exist than are loaded. */
  hasNextPage: boolean;
  /** Loads the next page. */
  fetchNextPage: () => void;
  refetch: () => Promise<unknown>;
}

/**
 * The user's chat sessions with an oracle (spec C5): list in pages, create, delete. Creating or deleting
 * refreshes the list, and so does the end of every chat turn.
 *
 * @example
 * const { sessions, createSession } = useOracleSessions(oracleDid);
 * const onNew = async () => setSessionId((await createSession()).sessionId);
 */
export function useOracleSessions(
  oracleDid: string,
  options: { pageSize?: number; overrides?: OracleOverrides } = {},
): UseOracleSessionsResult {
  const { cache } = useOraclesContext();
  const http = useOracleHttp(oracleDid, options.overrides);
  const config = useOraclesConfig(oracleDid, options.overrides);
  const limit = options.pageSize ?? 20;
  const [pages, setPages] = useState(1);
  const query = useQuery<SessionPage>(
    cache,
    ['oracle-sessions', oracleDid, limit, pages],
    async () => {
      if (!http) throw new Error('The oracle config is not ready');
      const all: ChatSession[] = [];
      let total = 0;
      for (let page = 0; page < pages; page++) {
        const res = await http.call(oracleContract.listSessions, { query: { limit, offset: page * limit } });
        all.push(...res.sessions);
        total = res.total;
        if (all.length >= total) break;
      }
      return { sessions: all, total };
    },
    http !== undefined,
  );

  const createSession = useCallback(
    async (title?: string): Promise<ChatSession> => {
      if (!http) throw new Error('The oracle config is not ready');
      const session = await http.call(oracleContract.createSession, {
        body: title === undefined ? {} : { title },
      });
      await cache.invalidate(['oracle-sessions', oracleDid]);
      return session;
    },
    [http, cache, oracleDid],
  );

  const deleteSession = useCallback(
    async (sessionId: string): Promise<void> => {
      if (!http) throw new Error('The oracle config is not ready');
      await http.call(oracleContract.deleteSession, { params: { sessionId } });
      await cache.invalidate(['oracle-sessions', oracleDid]);
    },
    [http, cache, oracleDid],
  );

  const sessions = query.data?.sessions ?? [];
  const total = query.data?.total ?? 0;
  return {
    sessions,
    total,
    // Loading until the first page arrives, the oracle's config resolution included (no empty-list flash).
    isLoading: query.isLoading || (config.isLoading && config.error === undefined),
    error: query.error ?? config.error,
    createSession,
    deleteSession,
    hasNextPage: sessions.length < total,
    fetchNextPage: useCallback(() => setPages((p) => p + 1), []),
    refetch: query.refetch,
  };
}
