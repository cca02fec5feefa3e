// Every array and object a hook returns keeps its identity while its data is unchanged: an app's effect keyed
// on `sessions` (sdk/README.md's app) ran on every render and created a session each time (issue 35).
import {
  useChat,
  useContractOracle,
  useGetOpenIdToken,
  useModels,
  useOracleSessions,
  useOraclesConfig,
  useUserPreferences,
} from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockOracle, providerFor, session, withMockServer } from './harness.js';

withMockServer();

describe('hook results keep their identity across renders while their data is unchanged', () => {
  it('useOracleSessions, useModels, useUserPreferences, useOraclesConfig, useContractOracle, useChat, useGetOpenIdToken', async () => {
    const oracle = mockOracle({
      sessions: [session('ses_1'), session('ses_2')],
      preferences: { language: 'sw', updatedAt: '2026-11-01T10:00:00.000Z' },
    });
    const oracleDid = oracle.control.oracleDid;
    const { result, rerender } = renderHook(
      () => ({
        sessions: useOracleSessions(oracleDid),
        models: useModels(oracleDid),
        preferences: useUserPreferences(oracleDid),
        config: useOraclesConfig(oracleDid),
        contract: useContractOracle({ oracleDid }),
        // Options as an app writes them: a new object on every render.
        chat: useChat({ oracleDid, sessionId: 'ses_1', uiComponents: {}, onPaymentRequiredError: () => {} }),
        token: useGetOpenIdToken(),
      }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => {
      const r = result.current;
      expect(r.sessions.sessions).toHaveLength(2);
      expect(r.models.models.length).toBeGreaterThan(0);
      expect(r.preferences.preferences?.language).toBe('sw');
      expect(r.config.isConfigReady).toBe(true);
      expect(r.chat.isLoading).toBe(false);
      expect(r.token.openIdToken).toBeDefined();
    });
    await act(() => new Promise((resolve) => setTimeout(resolve, 50))); // let late updates settle
    const before = result.current;
    rerender();
    rerender();
    const after = result.current;
    expect(after).not.toBe(before); // the renderHook callback's own object is new, each hook's is not:
    for (const hook of ['sessions', 'models', 'preferences', 'config', 'contract', 'chat', 'token'] as const)
      expect(after[hook], hook).toBe(before[hook]);
    expect(after.sessions.sessions).toBe(before.sessions.sessions);
    expect(after.models.models).toBe(before.models.models);
    expect(after.preferences.preferences).toBe(before.preferences.preferences);
    expect(after.config.config).toBe(before.config.config);
    expect(after.chat.messages).toBe(before.chat.messages);
  });

  it('with no data yet: `sessions` and `models` are one empty array each until the lists arrive', () => {
    const oracle = mockOracle();
    const { result, rerender } = renderHook(
      () => ({ sessions: useOracleSessions(''), models: useModels('') }),
      { wrapper: providerFor(oracle) },
    );
    const before = result.current;
    rerender();
    expect(result.current.sessions.sessions).toBe(before.sessions.sessions);
    expect(result.current.models.models).toBe(before.models.models);
    expect(result.current.sessions).toBe(before.sessions);
  });

  it('a new list is a new array: `sessions` changes when a session is created', async () => {
    const oracle = mockOracle({ sessions: [session('ses_1')] });
    const { result } = renderHook(() => useOracleSessions(oracle.control.oracleDid), {
      wrapper: providerFor(oracle),
    });
    await waitFor(() => expect(result.current.sessions).toHaveLength(1));
    const before = result.current.sessions;
    await act(() => result.current.createSession('Second'));
    await waitFor(() => expect(result.current.sessions).toHaveLength(2));
    expect(result.current.sessions).not.toBe(before);
  });
});
