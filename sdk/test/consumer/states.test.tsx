// The spec's states at the edges (issue 35 item 4): an empty `oracleDid` is idle (not loading for ever) in every
// hook, and an oracle that cannot be resolved puts the chat in `status: 'error'` with `error` naming the step
// (spec §7: "Load failures … are exposed as error …, and status becomes error").
import { useChat, useModels, useOracleSessions, useUserPreferences } from '@open-oracles/oracles-client-sdk';
import { renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { mockOracle, providerFor, server, session, withMockServer } from './harness.js';

withMockServer();

describe('no oracle named yet (oracleDid empty)', () => {
  it('every hook is idle: not loading, no error, nothing requested', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    const { result } = renderHook(
      () => ({
        chat: useChat({ oracleDid: '', sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
        sessions: useOracleSessions(''),
        models: useModels(''),
        preferences: useUserPreferences(''),
      }),
      { wrapper: providerFor(oracle) },
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(result.current.chat).toMatchObject({ isLoading: false, status: 'ready', error: undefined });
    expect(result.current.sessions).toMatchObject({ isLoading: false, error: undefined });
    expect(result.current.models).toMatchObject({ isLoading: false, error: undefined });
    expect(result.current.preferences).toMatchObject({ isLoading: false, error: undefined });
    expect(oracle.control.requests).toEqual([]);
  });
});

describe('an oracle that cannot be resolved', () => {
  it("a failing /config: the chat's status is error, with the error naming the step", async () => {
    const oracle = mockOracle({ sessions: [session()] });
    server.use(
      http.get(`${oracle.control.apiUrl}/config`, () =>
        HttpResponse.json({ code: 'internal', message: 'boom' }, { status: 500 }),
      ),
    );
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle, { retry: { attempts: 0 } }) },
    );
    await waitFor(() => expect(result.current.error).toBeDefined(), { timeout: 5000 });
    expect(result.current.status).toBe('error');
    expect(result.current.isLoading).toBe(false);
    expect(result.current.error?.message).toMatch(/config/i);
  });
});
