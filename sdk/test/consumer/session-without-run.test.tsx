// Issue 35 (item 7): every chat mount asks `GET /sessions/:id/run`, and a session with no run answered 404,
// a red line in the browser console on every mount. The oracle (and the mocked one) now answers 204: the
// chat mounts quietly, surfaces no error and asks once. Sessions carry a string title, "New chat" until the
// first message names them.
import { useChat, useOracleSessions } from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { mockOracle, providerFor, server, session, withMockServer } from './harness.js';

withMockServer();

describe('a chat mounted on a session with no run', () => {
  it('GET /sessions/:id/run answers 204 once; no error, no retry, nothing logged', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    const answers: string[] = [];
    const onAnswer = ({ request, response }: { request: Request; response: Response }): void => {
      answers.push(`${request.method} ${new URL(request.url).pathname} ${response.status}`);
    };
    server.events.on('response:mocked', onAnswer);
    const logged = [vi.spyOn(console, 'error'), vi.spyOn(console, 'warn')];
    const onPaymentRequiredError = vi.fn();
    try {
      const { result } = renderHook(
        () => useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError }),
        { wrapper: providerFor(oracle) },
      );
      await waitFor(() => expect(answers.some((a) => a.includes('/run'))).toBe(true));
      await waitFor(() => expect(result.current.isLoading).toBe(false));
      // Let anything that would retry or re-mint do so.
      await act(() => new Promise((r) => setTimeout(r, 300)));

      expect(answers.filter((a) => a.includes('/run'))).toEqual(['GET /sessions/ses_1/run 204']);
      expect(answers.filter((a) => !/ 2\d\d$/.test(a))).toEqual([]);
      const paths = oracle.control.requests.map((r) => `${r.method} ${r.path}`);
      expect(paths.filter((p) => p === 'GET /sessions/ses_1/run')).toHaveLength(1);
      expect(paths).not.toContain('POST /delegation');
      expect(oracle.control.delegations).toEqual([]);
      expect(result.current.error).toBeFalsy();
      expect(result.current.status).toBe('ready');
      expect(result.current.messages).toEqual([]);
      expect(onPaymentRequiredError).not.toHaveBeenCalled();
      for (const spy of logged) expect(spy).not.toHaveBeenCalled();
    } finally {
      server.events.removeListener('response:mocked', onAnswer);
      for (const spy of logged) spy.mockRestore();
    }
  });

  it.each([
    ['session_not_found', 'Run not found.'],
    ['run_not_found', 'Run not found.'],
  ])('an older oracle answering 404 %s for no run: no run, no error, asked once', async (code, message) => {
    const oracle = mockOracle({ sessions: [session()] });
    let asked = 0;
    server.use(
      http.get(`${oracle.control.apiUrl}/sessions/:sessionId/run`, () => {
        asked++;
        return HttpResponse.json({ code, message, statusCode: 404 }, { status: 404 });
      }),
    );
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    await act(() => new Promise((r) => setTimeout(r, 300)));
    expect(asked).toBe(1);
    expect(result.current.error).toBeFalsy();
    expect(result.current.status).toBe('ready');
    expect(oracle.control.delegations).toEqual([]);
  });

  it('a new session is titled "New chat" until its first message names it', async () => {
    const oracle = mockOracle({ script: [{ type: 'text', text: 'Plant after the first rains.' }] });
    const { result } = renderHook(() => useOracleSessions(oracle.control.oracleDid), {
      wrapper: providerFor(oracle),
    });
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    let created: { sessionId: string; title: string } | undefined;
    await act(async () => {
      created = await result.current.createSession();
    });
    expect(created?.title).toBe('New chat');
    await waitFor(() => expect(result.current.sessions.map((s) => s.title)).toEqual(['New chat']));

    const chat = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: created?.sessionId ?? '',
          onPaymentRequiredError: vi.fn(),
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(chat.result.current.isLoading).toBe(false));
    act(() => chat.result.current.sendMessage('When do I plant maize?'));
    await waitFor(() => expect(chat.result.current.status).toBe('ready'));
    await waitFor(() => expect(oracle.control.sessions[0]?.title).toBe('When do I plant maize?'));
  });
});
