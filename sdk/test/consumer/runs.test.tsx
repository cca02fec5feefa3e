import { useChat } from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { StrictMode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { mockOracle, providerFor, server, session, withMockServer } from './harness.js';
import { textOf } from '../message-text.js';

withMockServer();

const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('durable runs: abort, re-join, pick-up', () => {
  it('abortStream asks the oracle first, keeps the partial answer and lands in ready', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      stepDelayMs: 5,
      script: [{ type: 'text', text: words(400) }],
    });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('long please'));
    await waitFor(() => expect(textOf(result.current.messages.at(-1)).length).toBeGreaterThan(20));
    await act(() => result.current.abortStream());
    expect(result.current.status).toBe('ready');
    expect(result.current.run.ended).toBe('aborted');
    const run = oracle.control.latestRun('ses_1');
    expect(run?.status).toBe('aborted');
    const answer = result.current.messages.at(-1);
    expect(textOf(answer)).toBe(run?.text);
    expect(textOf(answer).length).toBeLessThan(words(400).length);
    expect(answer?.runStatus).toBe('aborted');
    const paths = oracle.control.requests.map((r) => `${r.method} ${r.path}`);
    expect(paths).toContain('POST /messages/abort');
    expect(paths.filter((p) => p.startsWith('GET /runs/'))).toEqual([]);
    expect(result.current.sendMessageError).toBeUndefined();
  });

  it('re-joins a dropped stream after its last event id, without repeating text or re-running a tool', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [
        { type: 'text', text: 'Before the drop. ' },
        { type: 'browser_tool_call', toolName: 'count', args: {} },
        { type: 'drop' },
        { type: 'delay', ms: 30 },
        { type: 'text', text: 'After the drop.' },
      ],
    });
    const fn = vi.fn(() => Promise.resolve(42));
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
          browserTools: { count: { toolName: 'count', description: 'counts', schema: z.object({}), fn } },
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    act(() => result.current.sendMessage('go'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(textOf(result.current.messages.at(-1))).toBe('Before the drop. After the drop.');
    expect(fn).toHaveBeenCalledTimes(1);
    expect(oracle.control.toolResults).toHaveLength(1);
    const rejoins = oracle.control.requests.filter((r) => r.path.startsWith('/runs/'));
    expect(rejoins.length).toBeGreaterThanOrEqual(1);
    expect(result.current.run).toMatchObject({ ended: 'finished', reconnecting: false });
  });

  it('picks up a run in flight when the chat mounts again (page reload mid-turn)', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      stepDelayMs: 3,
      script: [{ type: 'text', text: words(60) }],
    });
    const wrapper = providerFor(oracle);
    const first = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper },
    );
    await waitFor(() => expect(first.result.current.isLoading).toBe(false));
    act(() => first.result.current.sendMessage('long'));
    await waitFor(() => expect(textOf(first.result.current.messages.at(-1)).length).toBeGreaterThan(10));
    first.unmount();
    expect(oracle.control.latestRun('ses_1')?.ended).toBe(false);

    const second = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper },
    );
    await waitFor(() => expect(second.result.current.run.ended).toBe('finished'));
    const run = oracle.control.latestRun('ses_1');
    expect(second.result.current.status).toBe('ready');
    expect(textOf(second.result.current.messages.find((m) => m.id === run?.requestId))).toBe(words(60));
    expect(oracle.control.requests.map((r) => `${r.method} ${r.path}`)).toContain('GET /sessions/ses_1/run');
  });

  it('ends disconnected when the run is gone (re-join answers 404)', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [{ type: 'text', text: 'partial ' }, { type: 'drop' }],
    });
    // The app's own override, composed with the kit: this oracle forgot the run.
    server.use(
      http.get(`${oracle.control.apiUrl}/runs/:runId`, () =>
        HttpResponse.json({ code: 'not_found', message: 'Run not found.', statusCode: 404 }, { status: 404 }),
      ),
    );
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('go'));
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.run.ended).toBe('disconnected');
    expect(result.current.sendMessageError?.message).toBe(
      'The answer stream was lost and could not be re-joined',
    );
    expect(textOf(result.current.messages.at(-1))).toBe('partial ');
  });
});

describe('how a turn ends', () => {
  const sse = (frames: string[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const f of frames) c.enqueue(new TextEncoder().encode(f));
        c.close();
      },
    });
  const frame = (id: number, event: string, data: unknown) =>
    `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const ts = '2026-11-23T10:00:00.000Z';
  const headers = { 'content-type': 'text/event-stream', 'x-request-id': 'req_9', 'x-run-id': 'run_9' };

  it('a resumed run (after a server restart) cuts the text back to partialLength and appends what follows', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    server.use(
      http.post(
        `${oracle.control.apiUrl}/messages/ses_1`,
        () =>
          new Response(
            sse([
              frame(1, 'run', { runId: 'run_9', requestId: 'req_9' }),
              frame(2, 'message', { content: 'Hello wor', timestamp: ts }),
            ]),
            { headers },
          ),
      ),
      http.get(`${oracle.control.apiUrl}/runs/run_9`, ({ request }) => {
        expect(new URL(request.url).searchParams.get('after')).toBe('2');
        return new Response(
          sse([
            frame(3, 'run', { runId: 'run_9', requestId: 'req_9', resumed: true, partialLength: 6 }),
            frame(4, 'message', { content: 'world!', timestamp: ts }),
            frame(5, 'done', { status: 'finished' }),
          ]),
          { headers },
        );
      }),
    );
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('hi'));
    await waitFor(() => expect(result.current.run.ended).toBe('finished'));
    expect(textOf(result.current.messages.at(-1))).toBe('Hello world!');
    expect(result.current.run).toMatchObject({
      runId: 'run_9',
      requestId: 'req_9',
      resumed: true,
      reconnecting: false,
    });
    expect(result.current.status).toBe('ready');
  });

  it('an interrupted run shows its partialText; a failed one is a send error with the error text', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    let turn = 0;
    server.use(
      http.post(`${oracle.control.apiUrl}/messages/ses_1`, () => {
        turn++;
        const frames =
          turn === 1
            ? [
                frame(1, 'run', { runId: 'run_9', requestId: 'req_9' }),
                frame(2, 'message', { content: 'Half an ans', timestamp: ts }),
                frame(3, 'done', { status: 'interrupted', partialText: 'Half an answer' }),
              ]
            : [
                frame(1, 'run', { runId: 'run_10', requestId: 'req_10' }),
                frame(2, 'error', { error: 'The model is unavailable', timestamp: ts }),
                frame(3, 'done', { status: 'failed', partialText: '' }),
              ];
        return new Response(sse(frames), { headers: { ...headers, 'x-request-id': `req_${8 + turn}` } });
      }),
    );
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('one'));
    await waitFor(() => expect(result.current.run.ended).toBe('interrupted'));
    expect(result.current.status).toBe('ready');
    expect(textOf(result.current.messages.at(-1))).toBe('Half an answer');
    expect(result.current.messages.at(-1)?.runStatus).toBe('interrupted');

    act(() => result.current.sendMessage('two'));
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.run.ended).toBe('failed');
    expect(result.current.sendMessageError?.message).toBe('The model is unavailable');
  });
});

describe('capability tokens', () => {
  it('posts a fresh delegation to /delegation on delegation_missing and retries the turn once', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      delegation: 'missing',
      script: [{ type: 'text', text: 'ok' }],
    });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('Hi'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(textOf(result.current.messages.at(-1))).toBe('ok');
    expect(oracle.control.delegations).toHaveLength(1);
    const posted = oracle.control.requests.filter((r) => r.path === '/delegation');
    expect(posted).toHaveLength(1);
    expect(posted[0]?.body).toEqual(oracle.control.delegations[0]);
    // The retried turn carries the new delegation.
    const sends = oracle.control.requests.filter((r) => r.method === 'POST' && r.path === '/messages/ses_1');
    expect(sends).toHaveLength(2);
    expect(sends[1]?.headers['x-ucan-delegation']).toBe(oracle.control.delegations[0]?.serialized);
    expect(sends[0]?.headers['x-ucan-delegation']).not.toBe(sends[1]?.headers['x-ucan-delegation']);
  });

  it('retries only once: a second delegation_expired is a send error', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    let refusals = 0;
    server.use(
      http.post(`${oracle.control.apiUrl}/messages/ses_1`, () => {
        refusals++;
        return HttpResponse.json(
          { code: 'delegation_expired', message: 'The stored delegation has expired.', statusCode: 401 },
          { status: 401 },
        );
      }),
    );
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('Hi'));
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(refusals).toBe(2);
    expect(oracle.control.delegations).toHaveLength(1);
    expect(result.current.sendMessageError?.message).toBe('The stored delegation has expired.');
  });

  it('without createInvocation sends only the delegation header', async () => {
    const oracle = mockOracle({ sessions: [session()], script: [{ type: 'text', text: 'ok' }] });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle, { createInvocation: undefined }) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    act(() => result.current.sendMessage('Hi'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    for (const r of oracle.control.requests) {
      expect(r.headers['authorization']).toBeUndefined();
      expect(r.headers['x-auth-type']).toBeUndefined();
      expect(r.headers['x-ucan-delegation']).toMatch(/^delegation-/);
    }
    expect(oracle.control.handshakes.at(-1)?.auth).toEqual({
      ucanDelegation: expect.stringMatching(/^delegation-/),
    });
  });
});

describe('history', () => {
  const thread = Array.from({ length: 45 }, (_, i) => ({
    id: `m${i}`,
    type: i % 2 === 0 ? ('human' as const) : ('ai' as const),
    content: `message ${i}`,
  }));

  it('loads the newest page, then older pages on demand', async () => {
    const oracle = mockOracle({ sessions: [session()], history: { ses_1: thread } });
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
          historyPageSize: 20,
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.messages).toHaveLength(20));
    expect(result.current.messages[0]?.id).toBe('m25');
    expect(result.current.hasOlderMessages).toBe(true);
    await act(() => result.current.loadOlderMessages());
    expect(result.current.messages).toHaveLength(40);
    await act(() => result.current.loadOlderMessages());
    expect(result.current.messages.map((m) => m.id)).toEqual(thread.map((m) => m.id));
    expect(result.current.hasOlderMessages).toBe(false);
  });

  // Issue 35: refetchMessages replaced the thread with the newest page, dropping the pages loaded before.
  it('refetchMessages keeps the older pages loaded before, and loading older goes on from them', async () => {
    const oracle = mockOracle({ sessions: [session()], history: { ses_1: thread } });
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
          historyPageSize: 20,
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.messages).toHaveLength(20));
    await act(() => result.current.loadOlderMessages());
    expect(result.current.messages).toHaveLength(40);
    await act(() => result.current.refetchMessages());
    expect(result.current.messages.map((m) => m.id)).toEqual(thread.slice(5).map((m) => m.id));
    expect(result.current.hasOlderMessages).toBe(true);
    await act(() => result.current.loadOlderMessages());
    expect(result.current.messages.map((m) => m.id)).toEqual(thread.map((m) => m.id));
    expect(result.current.hasOlderMessages).toBe(false);
  });

  it('falls back to the whole GET /messages/:id when the paged route is missing', async () => {
    const oracle = mockOracle({ sessions: [session()], history: { ses_1: thread }, legacyHistoryOnly: true });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.messages).toHaveLength(45));
    expect(result.current.hasOlderMessages).toBe(false);
    expect(oracle.control.requests.map((r) => r.path)).toEqual(
      expect.arrayContaining(['/sessions/ses_1/messages', '/messages/ses_1']),
    );
  });

  it('shows stored tool calls as parts of their message', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      history: {
        ses_1: [
          {
            id: 'a',
            type: 'ai',
            content: 'Here:',
            toolCalls: [
              {
                id: 't1',
                name: 'get_weather',
                kind: 'tool',
                args: { city: 'X' },
                status: 'done',
                output: '{"t":1}',
              },
              { id: 'c1', name: 'WeatherCard', kind: 'component', args: { city: 'X' } },
            ],
          },
        ],
      },
    });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.messages).toHaveLength(1));
    expect(result.current.messages[0]?.content).toEqual([
      'Here:',
      {
        name: 'get_weather',
        props: {
          id: 't1',
          args: { city: 'X' },
          status: 'done',
          output: '{"t":1}',
          toolName: 'get_weather',
          kind: 'tool',
          isToolCall: true,
        },
      },
      { name: 'WeatherCard', props: { id: 'c1', args: { city: 'X' }, status: 'done', kind: 'component' } },
    ]);
  });

  it('refetchMessages after a turn gives the stored thread, without the optimistic copy', async () => {
    const oracle = mockOracle({ sessions: [session()], script: [{ type: 'text', text: 'Stored answer.' }] });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('Question'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    const streamedAnswerId = result.current.messages.at(-1)?.id;
    await act(() => result.current.refetchMessages());
    expect(result.current.messages.map((m) => [m.type, textOf(m)])).toEqual([
      ['human', 'Question'],
      ['ai', 'Stored answer.'],
    ]);
    expect(result.current.messages.at(-1)?.id).toBe(streamedAnswerId);
  });

  it('works under StrictMode (effects mounted twice)', async () => {
    const oracle = mockOracle({ sessions: [session()], script: [{ type: 'text', text: 'strict ok' }] });
    const Provider = providerFor(oracle);
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      {
        wrapper: ({ children }) => (
          <StrictMode>
            <Provider>{children}</Provider>
          </StrictMode>
        ),
      },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    act(() => result.current.sendMessage('hi'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(textOf(result.current.messages.at(-1))).toBe('strict ok');
    expect(oracle.control.toolResults).toEqual([]);
  });

  it('reports a load failure as error (not sendMessageError)', async () => {
    const oracle = mockOracle({ sessions: [] });
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_missing',
          onPaymentRequiredError: vi.fn(),
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.error?.message).toBe('Session not found.');
    expect(result.current.sendMessageError).toBeUndefined();
    expect(result.current.isLoading).toBe(false);
  });
});
