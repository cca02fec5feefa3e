// An app written for the reference SDK, against a server that speaks the reference protocol
// (../shared/facts/oracle-wire-protocol.md): no `GET /config`, `done` as `{}` or with booleans, `tool_call` with
// its id only in `eventId` and the real tool name in `args.toolName` (issue 35 item 3). Before, the SDK dropped
// those events and ended the turn in "The answer stream was lost" although the text had arrived, and useChat
// never started without `/config` even with both addresses in `overrides`.
import { useChat } from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { mockOracle, providerFor, server, session, withMockServer } from './harness.js';

withMockServer();

const BASE = 'http://reference.test';
const sse = (events: [string, unknown][]): string =>
  events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');

/** The reference oracle's answer to a streamed message: a tool call, two text deltas and the given `done`. */
function referenceTurn(done: Record<string, unknown>, text = ['Hel', 'lo']): string {
  const ref = { sessionId: 'ses_1', requestId: 'req-ref-1' };
  const call = {
    ...ref,
    toolName: 'toolCall',
    args: { city: 'Nairobi', toolName: 'get_weather' },
    eventId: 'call-9',
  };
  return sse([
    ['tool_call', { ...call, status: 'isRunning' }],
    ['tool_call', { ...call, status: 'done', output: '{"temp":24}' }],
    ...text.map((content): [string, unknown] => [
      'message',
      { content, timestamp: '2026-11-28T10:00:00.000Z' },
    ]),
    ['done', done],
  ]);
}

function referenceServer(done: Record<string, unknown>, text?: string[]) {
  const oracle = mockOracle({ apiUrl: BASE, sessions: [session()], legacyHistoryOnly: true });
  server.use(
    http.get(`${BASE}/config`, () => HttpResponse.json({ message: 'Cannot GET /config' }, { status: 404 })),
    http.post(
      `${BASE}/messages/ses_1`,
      () =>
        new HttpResponse(referenceTurn(done, text), {
          headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req-ref-1' },
        }),
    ),
  );
  return oracle;
}

const chatOn = (oracle: ReturnType<typeof referenceServer>) =>
  renderHook(
    () =>
      useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'ses_1',
        onPaymentRequiredError: vi.fn(),
        overrides: { baseUrl: BASE, wsUrl: BASE },
      }),
    { wrapper: providerFor(oracle) },
  );

describe('a server of the reference protocol', () => {
  it('useChat starts without GET /config when overrides give both addresses, and reports no error', async () => {
    const oracle = referenceServer({});
    const { result } = chatOn(oracle);
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    expect(result.current.error).toBeUndefined();
    expect(result.current.status).toBe('ready');
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
  });

  it('`done` as `{}` ends the turn as finished: the text, and the tool call under its real name, no error', async () => {
    const oracle = referenceServer({});
    const { result } = chatOn(oracle);
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('weather?'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(result.current.sendMessageError).toBeUndefined();
    expect(result.current.error).toBeUndefined();
    const answer = result.current.messages.at(-1);
    expect(answer?.type).toBe('ai');
    expect(JSON.stringify(answer?.content)).toContain('Hello');
    expect(JSON.stringify(result.current.messages)).toContain('get_weather');
    expect(JSON.stringify(result.current.messages)).toContain('call-9');
  });

  it('`done` with the boolean form `{aborted: true, partialText}` ends the turn as aborted, with its text', async () => {
    const oracle = referenceServer({ aborted: true, partialText: 'Hel' }, ['Hel']);
    const { result } = chatOn(oracle);
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('weather?'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(result.current.sendMessageError).toBeUndefined();
    expect(JSON.stringify(result.current.messages.at(-1)?.content)).toContain('Hel');
  });
});
