// Spec part C where it differed, each through the public exports and the MSW kit, as an app team would test.
import {
  OracleRequestError,
  ReauthorizationDeclinedError,
  renderMessageContent,
  useAgAction,
  useChat,
  useOracleSessions,
  useOraclesConfig,
  type UIComponents,
} from '@open-oracles/oracles-client-sdk';
import { act, render, renderHook, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { mockOracle, providerFor, server, session, withMockServer } from './harness.js';
import { textOf } from '../message-text.js';

withMockServer();

const fast = { retry: { attempts: 1, baseMs: 20, maxMs: 40, jitter: 0 } };

describe("useChat's uiComponents", () => {
  it('are what renderMessageContent(content) draws components and tool calls with, live and after a reload', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [
        { type: 'text', text: 'Here. ' },
        { type: 'tool_call', toolName: 'get_weather', args: { city: 'Nairobi' }, output: { t: 24 } },
        { type: 'render_component', componentName: 'WeatherCard', args: { city: 'Nairobi' } },
        { type: 'text', text: 'Done.' },
      ],
    });
    const uiComponents: UIComponents = {
      WeatherCard: ({ city }: { city: string }) => <em>{`card ${city}`}</em>,
      get_weather: ({ status }: { status?: string }) => <i>{`weather tool ${status}`}</i>,
    };
    let chat: ReturnType<typeof useChat> | undefined;
    function Chat(): ReactNode {
      chat = useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'ses_1',
        onPaymentRequiredError: vi.fn(),
        uiComponents,
      });
      return (
        <div>
          {chat.messages.map((m) => (
            <p key={m.id} data-testid={m.type}>
              {renderMessageContent(m.content)}
            </p>
          ))}
        </div>
      );
    }
    render(<Chat />, { wrapper: providerFor(oracle) });
    await waitFor(() => expect(chat?.isLoading).toBe(false));
    act(() => chat?.sendMessage('weather'));
    await waitFor(() => expect(chat?.status).toBe('ready'));
    const live = screen.getByTestId('ai').textContent;
    expect(live).toBe('Here. Done.weather tool donecard Nairobi');
    const liveContent = chat?.messages.at(-1)?.content;
    await act(() => chat!.refetchMessages());
    // The same parts in the same order after a reload (history stores text and calls apart).
    expect(screen.getByTestId('ai').textContent).toBe(live);
    expect(chat?.messages.at(-1)?.content).toEqual(
      (liveContent as unknown[]).map((p) =>
        typeof p === 'string' ? p : { name: (p as { name: string }).name, props: expect.anything() },
      ),
    );
  });

  it('a tool call without a component of its own renders with a default line', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [{ type: 'tool_call', toolName: 'lookup', args: {}, error: 'no such city' }],
    });
    let chat: ReturnType<typeof useChat> | undefined;
    function Chat(): ReactNode {
      chat = useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'ses_1',
        onPaymentRequiredError: vi.fn(),
      });
      return (
        <div>
          {chat.messages.map((m) => (
            <p key={m.id}>{renderMessageContent(m.content)}</p>
          ))}
        </div>
      );
    }
    render(<Chat />, { wrapper: providerFor(oracle) });
    await waitFor(() => expect(chat?.isLoading).toBe(false));
    act(() => chat?.sendMessage('look it up'));
    await waitFor(() => expect(chat?.status).toBe('ready'));
    expect(screen.getByText('[lookup: failed (no such city)]').dataset['oraclePart']).toBe('tool-call');
  });
});

describe('config resolution never sticks silently', () => {
  it('a failed chain lookup reaches useChat and useOraclesConfig as an error naming the step, retries, and recovers', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    let down = true;
    let lookups = 0;
    server.use(
      http.get(`${oracle.control.chainRestUrl}/ixo/entity/:id`, () => {
        lookups++;
        return down
          ? HttpResponse.json({ code: 14, message: 'unavailable', details: [] }, { status: 503 })
          : undefined;
      }),
    );
    const { result } = renderHook(
      () => ({
        chat: useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
        }),
        config: useOraclesConfig(oracle.control.oracleDid),
      }),
      { wrapper: providerFor(oracle, fast) },
    );
    await waitFor(() => expect(result.current.chat.error).toBeDefined());
    expect(result.current.chat.error?.message).toMatch(
      /^The chain lookup of did:ixo:entity:mock-oracle failed: http:\/\/chain\.test\/ixo\/entity\/did:ixo:entity:mock-oracle answered 503/,
    );
    expect(result.current.config.error).toBe(result.current.chat.error);
    expect(result.current.chat.isConfigReady).toBe(false);
    await waitFor(() => expect(lookups).toBeGreaterThanOrEqual(3));
    down = false;
    await waitFor(() => expect(result.current.chat.isConfigReady).toBe(true));
    expect(result.current.chat.error).toBeUndefined();
    expect(result.current.config.error).toBeUndefined();
  });

  it('a failed /config is an error too, and recovers', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    let down = true;
    server.use(
      http.get(`${oracle.control.apiUrl}/config`, () =>
        down ? new HttpResponse('bad gateway', { status: 502 }) : undefined,
      ),
    );
    const { result } = renderHook(() => useOraclesConfig(oracle.control.oracleDid), {
      wrapper: providerFor(oracle, fast),
    });
    await waitFor(() =>
      expect(result.current.error?.message).toBe(
        'Reading http://oracle.test/config failed: 502 (Reading /config: request failed with status 502)',
      ),
    );
    down = false;
    await waitFor(() => expect(result.current.isConfigReady).toBe(true));
    expect(result.current.error).toBeUndefined();
  });

  it('imperative calls made while it resolves wait for it', async () => {
    const oracle = mockOracle({ sessions: [session()], script: [{ type: 'text', text: 'waited' }] });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server.use(
      http.get(`${oracle.control.chainRestUrl}/ixo/entity/:id`, async () => {
        await gate;
        return undefined;
      }),
    );
    const { result } = renderHook(
      () => ({
        sessions: useOracleSessions(oracle.control.oracleDid),
        chat: useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
        }),
      }),
      { wrapper: providerFor(oracle) },
    );
    expect(result.current.sessions.isReady).toBe(false);
    let created: Promise<{ sessionId: string }> | undefined;
    act(() => {
      created = result.current.sessions.createSession('early');
      result.current.chat.sendMessage('early question');
    });
    expect(result.current.chat.status).toBe('submitted');
    release();
    await expect(created).resolves.toMatchObject({ title: 'early' });
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    expect(textOf(result.current.chat.messages.at(-1))).toBe('waited');
    expect(result.current.sessions.isReady).toBe(true);
  });
});

describe('re-authorization (spec §5 C step 4) and kept delegations', () => {
  it('asks onReauthorize before createDelegation runs again; declining fails the send, not the app', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      delegation: 'missing',
      script: [{ type: 'text', text: 'ok' }],
    });
    const onReauthorize = vi.fn(() => false);
    const createDelegation = vi.fn((did: string) =>
      Promise.resolve({
        serialized: `d-${did}-${createDelegation.mock.calls.length}`,
        expiresAt: Date.now() + 3_600_000,
      }),
    );
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle, { onReauthorize, createDelegation }) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    expect(createDelegation).toHaveBeenCalledTimes(1);
    act(() => result.current.sendMessage('Hi'));
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(onReauthorize).toHaveBeenCalledWith({
      oracleDid: oracle.control.oracleDid,
      userDid: 'did:key:z6MkUser',
      reason: 'delegation_missing',
    });
    expect(createDelegation).toHaveBeenCalledTimes(1);
    expect(result.current.sendMessageError).toBeInstanceOf(ReauthorizationDeclinedError);
    onReauthorize.mockReturnValue(true);
    act(() => result.current.sendMessage('Hi again'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(createDelegation).toHaveBeenCalledTimes(2);
    expect(oracle.control.delegations).toHaveLength(1);
  });

  it('keeps the delegation across page loads (localStorage), per user and oracle, never past its expiry', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    const createDelegation = vi.fn((did: string) =>
      Promise.resolve({ serialized: `kept-${did}`, expiresAt: Date.now() + 3_600_000 }),
    );
    const load = () =>
      renderHook(() => useOracleSessions(oracle.control.oracleDid), {
        wrapper: providerFor(oracle, { createDelegation, createInvocation: undefined }),
      });
    const first = load();
    await waitFor(() => expect(first.result.current.sessions).toHaveLength(1));
    first.unmount();
    const second = load(); // a new provider, as after a reload
    await waitFor(() => expect(second.result.current.sessions).toHaveLength(1));
    expect(createDelegation).toHaveBeenCalledTimes(1);
    expect(oracle.control.requests.at(-1)?.headers['x-ucan-delegation']).toBe(
      `kept-${oracle.control.oracleDid}`,
    );
    second.unmount();
    // An expired one is never sent: it is minted again, and the app is asked first.
    const key = Object.keys(localStorage).find((k) => k.includes(oracle.control.oracleDid)) ?? '';
    localStorage.setItem(key, JSON.stringify({ serialized: 'stale', expiresAt: Date.now() + 60_000 }));
    const onReauthorize = vi.fn(() => true);
    const third = renderHook(() => useOracleSessions(oracle.control.oracleDid), {
      wrapper: providerFor(oracle, { createDelegation, createInvocation: undefined, onReauthorize }),
    });
    await waitFor(() => expect(third.result.current.sessions).toHaveLength(1));
    expect(onReauthorize).toHaveBeenCalledWith(expect.objectContaining({ reason: 'expired' }));
    expect(createDelegation).toHaveBeenCalledTimes(2);
    expect(oracle.control.requests.some((r) => r.headers['x-ucan-delegation'] === 'stale')).toBe(false);
  });
});

describe('two useChat hooks on one session', () => {
  it('share one socket and run a browser tool and an action once', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [
        { type: 'browser_tool_call', toolName: 'pageTitle', args: {} },
        { type: 'action_call', toolName: 'highlight', args: { cardId: 'c1' } },
        { type: 'text', text: 'both ran' },
      ],
    });
    const fn = vi.fn(() => 'Title');
    const handler = vi.fn(() => ({ ok: true }));
    const tools = {
      pageTitle: { toolName: 'pageTitle', description: 'title', schema: z.object({}), fn },
    };
    const { result } = renderHook(
      () => {
        useAgAction({
          name: 'highlight',
          description: 'd',
          parameters: z.object({ cardId: z.string() }),
          handler,
        });
        const a = useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
          browserTools: tools,
        });
        const b = useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
          browserTools: tools,
        });
        return { a, b };
      },
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() =>
      expect(result.current.a.isRealTimeConnected && result.current.b.isRealTimeConnected).toBe(true),
    );
    act(() => result.current.a.sendMessage('go'));
    await waitFor(() => expect(result.current.b.status).toBe('ready'));
    expect(fn).toHaveBeenCalledTimes(1);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(oracle.control.toolResults).toHaveLength(1);
    expect(oracle.control.actionResults).toHaveLength(1);
    expect(oracle.control.handshakes).toHaveLength(1);
    expect(result.current.b.messages).toBe(result.current.a.messages);
    expect(textOf(result.current.b.messages.at(-1))).toBe('both ran');
  });
});

describe("useAgAction's render", () => {
  it('says done once the arguments are complete, with the handler’s result or error beside it', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [
        { type: 'action_call', toolName: 'highlight', args: { cardId: 'c1' } },
        { type: 'action_call', toolName: 'highlight', args: { cardId: 'boom' } },
      ],
    });
    let finish!: (v: unknown) => void;
    const seen: string[] = [];
    function Chat(): ReactNode {
      useAgAction({
        name: 'highlight',
        description: 'Highlights a card',
        parameters: z.object({ cardId: z.string() }),
        handler: ({ cardId }) => {
          if (cardId === 'boom') throw new Error('no such card');
          return new Promise((r) => (finish = r));
        },
        render: ({ status, args, executing, result, error }) => {
          const line = `${args.cardId ?? ''}:${status}:${executing ? 'executing' : 'idle'}:${JSON.stringify(result ?? null)}:${error ?? ''}`;
          seen.push(line);
          return <b>{line}</b>;
        },
      });
      const chat = useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'ses_1',
        onPaymentRequiredError: vi.fn(),
      });
      return (
        <div>
          <span data-testid="rt">{String(chat.isRealTimeConnected)}</span>
          <span data-testid="status">{chat.status}</span>
          <button onClick={() => chat.sendMessage('go')}>send</button>
          {chat.messages.map((m) => (
            <p key={m.id}>{renderMessageContent(m.content)}</p>
          ))}
        </div>
      );
    }
    render(<Chat />, { wrapper: providerFor(oracle) });
    await waitFor(() => expect(screen.getByTestId('rt').textContent).toBe('true'));
    act(() => screen.getByText('send').click());
    await waitFor(() => expect(screen.getByText('c1:done:executing:null:')).toBeTruthy());
    act(() => finish({ highlighted: 'c1' }));
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
    expect(screen.getByText('c1:done:idle:{"highlighted":"c1"}:')).toBeTruthy();
    expect(screen.getByText('boom:done:idle:null:no such card')).toBeTruthy();
    expect(seen.some((l) => l.startsWith('c1:isRunning'))).toBe(false);
  });
});

describe('an empty sessionId', () => {
  it('is "no session yet": nothing loads, nothing fails until a message is sent', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    const { result } = renderHook(
      () => useChat({ oracleDid: oracle.control.oracleDid, sessionId: '', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isConfigReady).toBe(true));
    await act(() => new Promise((r) => setTimeout(r, 30)));
    expect(result.current).toMatchObject({
      status: 'ready',
      isLoading: false,
      error: undefined,
      messages: [],
    });
    expect(oracle.control.requests).toEqual([]);
    act(() => result.current.sendMessage('hi'));
    expect(result.current.sendMessageError?.message).toMatch(/^No session yet/);
  });
});

describe('limits and bad answers end in a typed error and a usable hook', () => {
  it('a 429 is a sendMessageError carrying retryAfter seconds (from the body, else Retry-After)', async () => {
    const oracle = mockOracle({ sessions: [session()], script: [{ type: 'text', text: 'later' }] });
    let turn = 0;
    server.use(
      http.post(`${oracle.control.apiUrl}/messages/ses_1`, () => {
        turn++;
        if (turn === 1)
          return HttpResponse.json(
            {
              code: 'rate_limited',
              message: 'Too many turns; try again in 12 s.',
              statusCode: 429,
              requestId: 'r1',
              retryAfter: 12,
            },
            { status: 429, headers: { 'Retry-After': '12' } },
          );
        if (turn === 2)
          return new HttpResponse('slow down', { status: 429, headers: { 'Retry-After': '30' } });
        return undefined;
      }),
    );
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('one'));
    await waitFor(() => expect(result.current.status).toBe('error'));
    const err = result.current.sendMessageError;
    expect(err).toBeInstanceOf(OracleRequestError);
    expect(err).toMatchObject({
      status: 429,
      code: 'rate_limited',
      retryAfter: 12,
      message: 'Too many turns; try again in 12 s.',
    });
    act(() => result.current.sendMessage('two'));
    await waitFor(() => expect(result.current.sendMessageError).not.toBe(err));
    expect(result.current.sendMessageError).toMatchObject({ status: 429, retryAfter: 30 });
    act(() => result.current.sendMessage('three'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(textOf(result.current.messages.at(-1))).toBe('later');
  });

  it('broken frames and unknown events are skipped; a 5xx without a JSON body and a lost session list name their step', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    let turn = 0;
    server.use(
      http.post(`${oracle.control.apiUrl}/messages/ses_1`, () => {
        turn++;
        if (turn === 2) return new HttpResponse('<html>upstream died</html>', { status: 500 });
        const frames =
          'id: 1\nevent: run\ndata: {"runId":"run_x","requestId":"req_x"}\n\n' +
          'id: 2\nevent: reasoning\ndata: {not json\n\n' +
          'id: 3\nevent: teleport\ndata: {}\n\n' +
          'id: 4\nevent: message\ndata: {"content":"survived","timestamp":"2026-11-23T10:00:00.000Z"}\n\n' +
          'id: 5\nevent: done\ndata: {"status":"finished"}\n\n';
        return new Response(frames, {
          headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_x', 'x-run-id': 'run_x' },
        });
      }),
    );
    const { result } = renderHook(
      () => ({
        chat: useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
        }),
        sessions: useOracleSessions(oracle.control.oracleDid),
      }),
      { wrapper: providerFor(oracle, fast) },
    );
    await waitFor(() => expect(result.current.chat.isLoading).toBe(false));
    act(() => result.current.chat.sendMessage('one'));
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    expect(textOf(result.current.chat.messages.at(-1))).toBe('survived');
    expect(warn.mock.calls.map(([m]) => String(m))).toEqual(
      expect.arrayContaining([
        expect.stringContaining('"reasoning" event whose data is not JSON'),
        expect.stringContaining('unknown stream event "teleport"'),
      ]),
    );
    act(() => result.current.chat.sendMessage('two'));
    await waitFor(() => expect(result.current.chat.status).toBe('error'));
    expect(result.current.chat.sendMessageError).toMatchObject({
      status: 500,
      message: 'Sending a message: request failed with status 500',
    });
    // The network goes away: the session list's error says which step failed, not "Failed to fetch".
    server.use(http.get(`${oracle.control.apiUrl}/sessions`, () => HttpResponse.error()));
    await act(() => result.current.sessions.refetch());
    await waitFor(() => expect(result.current.sessions.error).toBeDefined());
    expect(result.current.sessions.error?.message).toMatch(
      /^The session list failed: http:\/\/oracle\.test\/sessions\?limit=20&offset=0 could not be reached/,
    );
  });

  it('a re-join gives up after exactly its attempts (errors and empty streams), ending disconnected', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [{ type: 'text', text: 'partial ' }, { type: 'drop' }, { type: 'delay', ms: 5000 }],
    });
    let rejoins = 0;
    server.use(
      http.get(`${oracle.control.apiUrl}/runs/:runId`, () => {
        rejoins++;
        return rejoins % 2 === 1
          ? new HttpResponse(null, { status: 503 })
          : new Response('', { headers: { 'content-type': 'text/event-stream' } });
      }),
    );
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
          rejoin: { attempts: 4, baseMs: 5, maxMs: 10, jitter: 0 },
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('go'));
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(rejoins).toBe(4);
    expect(result.current.run).toMatchObject({ ended: 'disconnected', reconnecting: false });
    expect(result.current.sendMessageError?.name).toBe('RunDisconnectedError');
    expect(textOf(result.current.messages.at(-1))).toBe('partial ');
  });
});
