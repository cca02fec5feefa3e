// TanStack Query under the server-state hooks, as a host app sees it: its own QueryClient, the key factory,
// the infinite session list, preferences refreshed by a turn.
import {
  oracleKeys,
  ORACLE_QUERY_PREFIX,
  useChat,
  useOracleSessions,
  useOraclesConfig,
  useUserPreferences,
} from '@open-oracles/oracles-client-sdk';
import { QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { delay, http } from 'msw';
import { mockOracle, providerFor, server, session, withMockServer } from './harness.js';

withMockServer();

describe('the host’s QueryClient', () => {
  it('holds the library’s queries under one prefix; the host can invalidate and prefetch them', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    const queryClient = new QueryClient();
    // The host prefetches the public /config itself (e.g. on the server), by the documented key.
    await queryClient.prefetchQuery({
      queryKey: oracleKeys.config(oracle.control.oracleDid, oracle.control.apiUrl),
      queryFn: () => fetch(`${oracle.control.apiUrl}/config`).then((r) => r.json()),
    });
    const fetchesBefore = oracle.control.requests.length;
    const { result } = renderHook(
      () => ({
        sessions: useOracleSessions(oracle.control.oracleDid),
        config: useOraclesConfig(oracle.control.oracleDid),
      }),
      { wrapper: providerFor(oracle, { queryClient }) },
    );
    await waitFor(() => expect(result.current.sessions.sessions).toHaveLength(1));
    expect(result.current.config.config?.name).toBe('Mock oracle');
    const keys = queryClient
      .getQueryCache()
      .getAll()
      .map((q) => q.queryKey);
    expect(keys.every((k) => k[0] === ORACLE_QUERY_PREFIX)).toBe(true);
    expect(keys).toEqual(
      expect.arrayContaining([
        oracleKeys.config(oracle.control.oracleDid, oracle.control.apiUrl),
        oracleKeys.sessionList(oracle.control.oracleDid, 'did:key:z6MkUser', 20),
      ]),
    );
    expect(oracle.control.requests.length).toBe(fetchesBefore + 1); // the session list only
    oracle.control.sessions.unshift(session('ses_new'));
    await act(() =>
      queryClient.invalidateQueries({ queryKey: oracleKeys.sessions(oracle.control.oracleDid) }),
    );
    await waitFor(() => expect(result.current.sessions.sessions).toHaveLength(2));
  });

  it('without one, the library uses its own and does not shadow a host QueryClientProvider', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    const host = new QueryClient();
    const Provider = providerFor(oracle);
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={host}>
        <Provider>{children}</Provider>
      </QueryClientProvider>
    );
    const { result } = renderHook(
      () => ({ client: useQueryClient(), sessions: useOracleSessions(oracle.control.oracleDid) }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.sessions.sessions).toHaveLength(1));
    expect(result.current.client).toBe(host);
    expect(host.getQueryCache().getAll()).toEqual([]);
  });
});

describe('useOracleSessions as an infinite query', () => {
  it('appends the next page without blanking the list or fetching earlier pages again', async () => {
    const oracle = mockOracle({ sessions: Array.from({ length: 5 }, (_, i) => session(`ses_${i}`)) });
    const lengths: number[] = [];
    const { result } = renderHook(
      () => {
        const s = useOracleSessions(oracle.control.oracleDid, { pageSize: 2 });
        lengths.push(s.sessions.length);
        return s;
      },
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.sessions).toHaveLength(2));
    const listed = () => oracle.control.requests.filter((r) => r.method === 'GET' && r.path === '/sessions');
    expect(listed()).toHaveLength(1);
    const from = lengths.length;
    act(() => result.current.fetchNextPage());
    await waitFor(() => expect(result.current.sessions).toHaveLength(4));
    act(() => result.current.fetchNextPage());
    await waitFor(() => expect(result.current.sessions).toHaveLength(5));
    expect(result.current.hasNextPage).toBe(false);
    expect(listed()).toHaveLength(3);
    expect(lengths.slice(from).every((n) => n >= 2)).toBe(true);
    expect(result.current.sessions.map((s) => s.sessionId)).toEqual(
      oracle.control.sessions.map((s) => s.sessionId),
    );
  });

  it('createSession and deleteSession are mutations with pending and error state', async () => {
    const oracle = mockOracle({ sessions: [] });
    server.use(http.post(`${oracle.control.apiUrl}/sessions`, () => delay(100).then(() => undefined)));
    const { result } = renderHook(() => useOracleSessions(oracle.control.oracleDid), {
      wrapper: providerFor(oracle),
    });
    await waitFor(() => expect(result.current.isReady).toBe(true));
    let pending: Promise<unknown> | undefined;
    act(() => {
      pending = result.current.createSession('x');
    });
    await waitFor(() => expect(result.current.isCreatingSession).toBe(true));
    await act(() => pending!);
    await waitFor(() => expect(result.current.isCreatingSession).toBe(false));
    await act(async () => {
      await result.current.deleteSession('ses_missing').catch(() => undefined);
    });
    expect(result.current.deleteSessionError?.message).toBe('Session not found.');
  });
});

describe('useUserPreferences', () => {
  it('reads GET /user-preferences (null when none) and refreshes when a turn’s set_user_preferences call ends', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [
        {
          type: 'tool_call',
          toolName: 'set_user_preferences',
          args: { language: 'sw', agentName: 'Juma' },
          output: 'Updated.',
        },
        { type: 'text', text: 'Sawa.' },
      ],
    });
    const { result } = renderHook(
      () => ({
        prefs: useUserPreferences(oracle.control.oracleDid),
        chat: useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
        }),
      }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.prefs.isLoading).toBe(false));
    expect(result.current.prefs.preferences).toBeNull();
    act(() => result.current.chat.sendMessage('always reply in Kiswahili and call yourself Juma'));
    await waitFor(() => expect(result.current.prefs.preferences?.agentName).toBe('Juma'));
    expect(result.current.prefs.preferences).toMatchObject({
      language: 'sw',
      agentName: 'Juma',
      updatedAt: expect.any(String),
    });
    expect(oracle.control.requests.filter((r) => r.path === '/user-preferences')).toHaveLength(2);
  });
});
