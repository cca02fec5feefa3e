// SocketChannel against a real socket.io server in this process: the handshake's query and auth, events in
// and out (an emit before socket.io has loaded included), refused handshakes handled by the server's code (a
// new delegation only when the delegation is the problem, a new invocation for an expired token, no retry for a
// session or room that is gone, bounded retries while the service is unavailable), a dropped connection,
// close. Then ChatController's socket side: browser tools and actions run once and
// answer, socket events land in their turn's message, other sessions' and invalid events are ignored.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { WebSocket as NodeWebSocket } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChatController } from '../../src/chat/chat-controller.js';
import {
  SocketChannel,
  UNAVAILABLE_RETRIES,
  type AuthRefresh,
  type SocketAuth,
} from '../../src/chat/socket-channel.js';
import { ActionRegistry } from '../../src/tools/action-registry.js';
import type { OracleHttp } from '../../src/http/oracle-http.js';
import { OracleRequestError } from '../../src/http/oracle-request-error.js';

interface Handshake {
  query: Record<string, unknown>;
  auth: Record<string, unknown>;
}

/**
 * A socket.io server on a free port; `refuse` decides, per handshake, whether to refuse it: `true` without a
 * code, or with the oracle's code (the error's `data: {code, statusCode}`, as server/oracle/socket sends).
 */
async function startServer(refuse: (h: Handshake, n: number) => boolean | string = () => false) {
  const http: HttpServer = createServer();
  const io = new Server(http, { path: '/socket.io', transports: ['websocket'] });
  const handshakes: Handshake[] = [];
  const sockets: Socket[] = [];
  const received: [string, unknown][] = [];
  io.use((socket, next) => {
    const h = { query: { ...socket.handshake.query }, auth: { ...socket.handshake.auth } };
    handshakes.push(h);
    const refusal = refuse(h, handshakes.length);
    if (typeof refusal === 'string') {
      next(Object.assign(new Error(`refused: ${refusal}`), { data: { code: refusal, statusCode: 401 } }));
    } else if (refusal) next(new Error('auth_failed'));
    else next();
  });
  io.on('connection', (socket) => {
    sockets.push(socket);
    socket.onAny((name: string, payload: unknown) => received.push([name, payload]));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const server = {
    url,
    io,
    handshakes,
    sockets,
    received,
    close: () => new Promise<void>((resolve) => void io.close(() => resolve())),
  };
  opened.push(server);
  return server;
}

// The global WebSocket of this jsdom environment is undici's, which dispatches jsdom's Event on Node's
// EventTarget and throws; the `ws` client is a real WebSocket (as test/sdk-real/setup.ts does). Put back after.
const globalWebSocket = globalThis.WebSocket;
beforeAll(() => void Object.assign(globalThis, { WebSocket: NodeWebSocket }));
afterAll(() => void Object.assign(globalThis, { WebSocket: globalWebSocket }));

const opened: { close: () => Promise<void> }[] = [];
const channels: { close: () => void }[] = [];
afterEach(async () => {
  for (const c of channels.splice(0)) c.close();
  for (const s of opened.splice(0)) await s.close();
});

async function until(check: () => boolean, ms = 4000): Promise<void> {
  for (let waited = 0; waited < ms && !check(); waited += 10) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

function channel(url: string, auth: (refresh: AuthRefresh) => Promise<SocketAuth>, retryBaseMs = 20) {
  const events: [string, unknown][] = [];
  const connected: boolean[] = [];
  const authCalls: AuthRefresh[] = [];
  const codes: (string | undefined)[] = [];
  const refusals: Error[] = [];
  const ch = new SocketChannel({
    wsUrl: url,
    sessionId: 'ses_1',
    userDid: 'did:key:z6MkUser',
    retryBaseMs,
    auth: (refresh, code) => {
      authCalls.push(refresh);
      codes.push(code);
      return auth(refresh);
    },
    onEvent: (name, payload) => void events.push([name, payload]),
    onConnectedChange: (c) => void connected.push(c),
    onRefused: (error) => void refusals.push(error),
  });
  channels.push(ch);
  return { ch, events, connected, authCalls, codes, refusals };
}

describe('SocketChannel', () => {
  it('connects with the session and user in the query and the tokens as auth; events flow both ways', async () => {
    const server = await startServer();
    const { ch, events, connected, authCalls } = channel(server.url, () =>
      Promise.resolve({ ucanDelegation: 'del-1', invocation: 'inv-1' }),
    );
    expect(ch.connected).toBe(false);
    // Sent before socket.io has loaded: kept, and sent once it has.
    ch.emit('tool_result', { toolCallId: 'early', result: 1 });
    ch.connect();
    await until(() => ch.connected);
    expect(connected).toEqual([true]);
    expect(authCalls).toEqual([undefined]);
    expect(server.handshakes).toHaveLength(1);
    expect(server.handshakes[0]?.query).toMatchObject({ sessionId: 'ses_1', userDid: 'did:key:z6MkUser' });
    expect(server.handshakes[0]?.auth).toEqual({ ucanDelegation: 'del-1', invocation: 'inv-1' });
    await until(() => server.received.length === 1);
    ch.emit('action_call_result', { toolCallId: 'late', result: 2 });
    await until(() => server.received.length === 2);
    expect(server.received).toEqual([
      ['tool_result', { toolCallId: 'early', result: 1 }],
      ['action_call_result', { toolCallId: 'late', result: 2 }],
    ]);
    server.sockets[0]?.emit('tool_call', { any: 'payload' });
    await until(() => events.length === 1);
    expect(events).toEqual([['tool_call', { any: 'payload' }]]);
  });

  it('tokens that cannot be had: the handshake carries no auth (the server decides)', async () => {
    const server = await startServer();
    const { ch } = channel(server.url, () => Promise.reject(new Error('no key')));
    ch.connect();
    await until(() => ch.connected);
    expect(server.handshakes[0]?.auth).toEqual({});
  });

  it('a handshake refused without a code is tried again after the backoff with the same tokens, until accepted', async () => {
    const server = await startServer((_h, n) => n <= 2);
    const { ch, connected, authCalls } = channel(server.url, () =>
      Promise.resolve({ ucanDelegation: 'del' }),
    );
    ch.connect();
    await until(() => ch.connected);
    expect(authCalls).toEqual([undefined, undefined, undefined]);
    expect(connected).toEqual([false, false, true]);
  });

  // Issue 35: any refused handshake re-minted the delegation (a wallet prompt every ≤ 30 s, without limit),
  // for a deleted session, a removed room member or a database outage too.
  it.each(['delegation_missing', 'delegation_expired', 'auth_bad_signature', 'auth_wrong_audience'])(
    '%s: the next handshake carries a new delegation; refused again for it, the channel gives up (no prompt loop)',
    async (code) => {
      const server = await startServer(() => code);
      const { ch, authCalls, codes, refusals } = channel(server.url, () =>
        Promise.resolve({ ucanDelegation: 'del' }),
      );
      ch.connect();
      await until(() => refusals.length === 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(authCalls).toEqual([undefined, 'delegation']);
      expect(codes).toEqual([undefined, code]);
      expect(server.handshakes).toHaveLength(2);
      expect(refusals[0]).toMatchObject({
        name: 'OracleRequestError',
        code,
        step: 'socket handshake',
        message: `The chat's socket at ${server.url} was refused (${code}): refused: ${code}`,
      });
    },
  );

  it('a new delegation that is accepted: connected, and nothing is reported', async () => {
    const server = await startServer((_h, n) => (n === 1 ? 'delegation_expired' : false));
    const { ch, authCalls, refusals } = channel(server.url, () => Promise.resolve({ ucanDelegation: 'del' }));
    ch.connect();
    await until(() => ch.connected);
    expect(authCalls).toEqual([undefined, 'delegation']);
    expect(refusals).toEqual([]);
  });

  it('auth_expired: a new invocation first (no wallet), then a new delegation, then it gives up', async () => {
    const server = await startServer(() => 'auth_expired');
    const { ch, authCalls, refusals } = channel(server.url, () => Promise.resolve({ ucanDelegation: 'del' }));
    ch.connect();
    await until(() => refusals.length === 1);
    expect(authCalls).toEqual([undefined, 'invocation', 'delegation']);
    expect(refusals[0]).toMatchObject({ code: 'auth_expired' });
  });

  it.each(['session_not_found', 'room_not_found', 'bad_request'])(
    '%s: reported at once, never retried, no token minted',
    async (code) => {
      const server = await startServer(() => code);
      const { ch, authCalls, refusals, connected } = channel(server.url, () =>
        Promise.resolve({ ucanDelegation: 'del' }),
      );
      ch.connect();
      await until(() => refusals.length === 1);
      await new Promise((r) => setTimeout(r, 150));
      expect(server.handshakes).toHaveLength(1);
      expect(authCalls).toEqual([undefined]);
      expect(connected).toEqual([false]);
      expect(refusals[0]).toMatchObject({ code, step: 'socket handshake' });
      expect(refusals[0]?.message).toContain(server.url);
    },
  );

  it(`unavailable: tried again with the same tokens after the backoff, ${UNAVAILABLE_RETRIES} times, then reported`, async () => {
    const server = await startServer(() => 'unavailable');
    const { ch, authCalls, refusals } = channel(
      server.url,
      () => Promise.resolve({ ucanDelegation: 'del' }),
      5,
    );
    ch.connect();
    await until(() => refusals.length === 1, 8000);
    expect(server.handshakes).toHaveLength(UNAVAILABLE_RETRIES + 1);
    expect(authCalls.every((r) => r === undefined)).toBe(true);
    expect(refusals[0]).toMatchObject({ code: 'unavailable' });
  });

  it('tokens that cannot be had (the wallet declined) and a refusal: that error is reported, nothing retried', async () => {
    const server = await startServer(() => 'auth_missing');
    const declined = new Error('Re-authorization was declined');
    const { ch, refusals } = channel(server.url, () => Promise.reject(declined));
    ch.connect();
    await until(() => refusals.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(refusals).toEqual([declined]);
    expect(server.handshakes).toHaveLength(1);
  });

  it('the retry waits about its base delay, doubling for each refusal in a row', async () => {
    const times: number[] = [];
    const server = await startServer((_h, n) => {
      times.push(Date.now());
      return n <= 3;
    });
    const { ch } = channel(server.url, () => Promise.resolve({ ucanDelegation: 'd' }), 100);
    ch.connect();
    await until(() => ch.connected);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    // 100, 200, 400 ms, each ±20 % (timers never fire early; late, on a busy machine, so the upper bounds
    // are loose and the doubling is checked as a ratio: at least 2 × 0.8 / 1.2).
    expect(gaps[0]).toBeGreaterThanOrEqual(75);
    expect(gaps[1]).toBeGreaterThanOrEqual(155);
    expect(gaps[2]).toBeGreaterThanOrEqual(315);
    expect(gaps[2]).toBeLessThan(1_500);
    expect((gaps[1] as number) / (gaps[0] as number)).toBeGreaterThan(1.2);
    expect((gaps[2] as number) / (gaps[1] as number)).toBeGreaterThan(1.2);
  });

  it('a dropped connection is reported and reconnected after the SDK’s backoff, with the same tokens', async () => {
    const server = await startServer();
    const { ch, connected, authCalls } = channel(server.url, () => Promise.resolve({ ucanDelegation: 'd' }));
    ch.connect();
    await until(() => ch.connected);
    // The transport closes under the client (not a server-side "disconnect", which socket.io never retries).
    server.sockets[0]?.conn.close();
    await until(() => connected.length >= 3);
    expect(connected).toEqual([true, false, true]);
    expect(authCalls).toEqual([undefined, undefined]);
  });

  it('a dropped connection waits its backoff before the reconnect (the reconnect option, no jitter)', async () => {
    const server = await startServer();
    const connected: boolean[] = [];
    const ch = new SocketChannel({
      wsUrl: server.url,
      sessionId: 'ses_1',
      userDid: 'did:key:z6MkUser',
      reconnect: { baseMs: 1200, jitter: 0 },
      auth: () => Promise.resolve({ ucanDelegation: 'd' }),
      onEvent: () => undefined,
      onConnectedChange: (c) => void connected.push(c),
    });
    channels.push(ch);
    ch.connect();
    await until(() => ch.connected);
    const dropped = Date.now();
    server.sockets[0]?.conn.close();
    await until(() => connected.length >= 3);
    expect(connected).toEqual([true, false, true]);
    // socket.io's own reconnection would have come back within 750 ms (500 ms ± 50 %).
    expect(Date.now() - dropped).toBeGreaterThanOrEqual(1200);
    expect(server.handshakes).toHaveLength(2);
  });

  it('close: disconnects, reports nothing more, retries nothing; a channel closed before loading never connects', async () => {
    const server = await startServer((_h, n) => n === 1);
    const { ch, connected } = channel(server.url, () => Promise.resolve({ ucanDelegation: 'd' }), 150);
    ch.connect();
    await until(() => connected.length === 1);
    ch.close();
    await new Promise((r) => setTimeout(r, 400));
    expect(server.handshakes).toHaveLength(1);
    expect(connected).toEqual([false]);

    const early = channel(server.url, () => Promise.resolve({ ucanDelegation: 'd' }));
    early.ch.connect();
    early.ch.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(server.handshakes).toHaveLength(1);
    expect(early.connected).toEqual([]);
  });
});

describe('ChatController over the socket', () => {
  const noRun = () => Promise.reject(new OracleRequestError('Not found', { status: 404 }));
  const http = (authHeaders: Record<string, string> = {}) =>
    ({
      call: noRun,
      open: noRun,
      authHeaders: () => Promise.resolve(authHeaders),
      renewDelegation: () => Promise.resolve(),
    }) as unknown as OracleHttp;

  function controller(url: string, actions = new ActionRegistry()) {
    const c = new ChatController({
      sessionId: 'ses_1',
      userDid: 'did:key:z6MkUser',
      actions,
      resolve: () => Promise.reject(new Error('attached directly')),
      socketRetryBaseMs: 20,
    });
    let runs = 0;
    c.join(() => ({
      oracleDid: 'did:ixo:oracle',
      sessionId: 'ses_1',
      onPaymentRequiredError: () => undefined,
      streamingMode: 'immediate',
      browserTools: {
        count: {
          toolName: 'count_rows',
          description: 'Counts rows',
          schema: z.object({ table: z.string() }),
          fn: ({ table }: { table: string }) => {
            runs++;
            return { table, rows: 3 };
          },
        },
      },
    }));
    return { c, runs: () => runs };
  }

  /** A chat attached to `server` whose socket is connected, and the server's side of that socket. */
  async function connectedChat(server: Awaited<ReturnType<typeof startServer>>, actions?: ActionRegistry) {
    const chat = controller(server.url, actions);
    const release = chat.c.retain({ http: http(), wsUrl: server.url });
    await until(() => chat.c.store.getMeta().isRealTimeConnected);
    return { ...chat, release, socket: server.sockets[0] as Socket };
  }

  it('hands the delegation and the bearer invocation to the handshake, and reports the connection', async () => {
    const server = await startServer();
    const { c } = controller(server.url);
    const release = c.retain({
      http: http({ 'x-ucan-delegation': 'del', authorization: 'Bearer inv' }),
      wsUrl: server.url,
    });
    await until(() => c.store.getMeta().isRealTimeConnected);
    expect(server.handshakes[0]?.auth).toEqual({ ucanDelegation: 'del', invocation: 'inv' });
    release();
    expect(c.store.getMeta().isRealTimeConnected).toBe(false);
    const bare = controller(server.url);
    const releaseBare = bare.c.retain({ http: http(), wsUrl: server.url });
    await until(() => server.handshakes.length === 2);
    expect(server.handshakes[1]?.auth).toEqual({ ucanDelegation: '' });
    releaseBare();
  });

  it("a handshake refused for its delegation renews the delegation (with the server's reason) and retries with the new tokens", async () => {
    const server = await startServer((_h, n) => (n === 1 ? 'delegation_expired' : false));
    const { c } = controller(server.url);
    const renewals: unknown[][] = [];
    let version = 1;
    const renewing = {
      ...http(),
      authHeaders: () =>
        Promise.resolve({ 'x-ucan-delegation': `del-${version}`, authorization: `Bearer inv-${version}` }),
      renewDelegation: (...args: unknown[]) => {
        renewals.push(args);
        version++;
        return Promise.resolve();
      },
    } as unknown as OracleHttp;
    const release = c.retain({ http: renewing, wsUrl: server.url });
    await until(() => c.store.getMeta().isRealTimeConnected);
    expect(renewals).toEqual([[undefined, 'delegation_expired']]);
    expect(server.handshakes.map((h) => h.auth)).toEqual([
      { ucanDelegation: 'del-1', invocation: 'inv-1' },
      { ucanDelegation: 'del-2', invocation: 'inv-2' },
    ]);
    release();
  });

  it("a handshake refused as expired renews only the invocation; one refused for its session is the chat's error, with no token minted", async () => {
    const renewed: string[] = [];
    const tracking = {
      ...http({ 'x-ucan-delegation': 'del', authorization: 'Bearer inv' }),
      renewDelegation: () => {
        renewed.push('delegation');
        return Promise.resolve();
      },
      renewInvocation: () => {
        renewed.push('invocation');
        return Promise.resolve();
      },
    } as unknown as OracleHttp;
    const expired = await startServer((_h, n) => (n === 1 ? 'auth_expired' : false));
    const a = controller(expired.url);
    const releaseA = a.c.retain({ http: tracking, wsUrl: expired.url });
    await until(() => a.c.store.getMeta().isRealTimeConnected);
    expect(renewed).toEqual(['invocation']);
    releaseA();

    const gone = await startServer(() => 'session_not_found');
    const b = controller(gone.url);
    const releaseB = b.c.retain({ http: tracking, wsUrl: gone.url });
    // (This double answers every HTTP call 404, the history's too: wait for the socket's own error.)
    await until(
      () => (b.c.store.getMeta().error as { step?: string } | undefined)?.step === 'socket handshake',
    );
    expect(b.c.store.getMeta().error).toMatchObject({ code: 'session_not_found', step: 'socket handshake' });
    expect(b.c.store.getMeta().isRealTimeConnected).toBe(false);
    expect(renewed).toEqual(['invocation']);
    expect(gone.handshakes).toHaveLength(1);
    releaseB();
  });

  it('runs a browser tool call once and answers tool_result; ignores another session’s and a malformed one', async () => {
    const server = await startServer();
    const { runs, release, socket } = await connectedChat(server);
    const call = {
      sessionId: 'ses_1',
      requestId: 'req_1',
      toolCallId: 'b1',
      toolName: 'count_rows',
      args: { table: 'users' },
    };
    socket.emit('browser_tool_call', { ...call, sessionId: 'ses_other', toolCallId: 'b0' });
    socket.emit('browser_tool_call', { toolCallId: 'bad' });
    socket.emit('browser_tool_call', call);
    socket.emit('browser_tool_call', call);
    await until(() => server.received.length >= 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(server.received).toEqual([
      ['tool_result', { toolCallId: 'b1', result: { table: 'users', rows: 3 } }],
    ]);
    expect(runs()).toBe(1);
    release();
  });

  it('runs an action only while isRunning, once; answers action_call_result', async () => {
    const server = await startServer();
    const actions = new ActionRegistry();
    const seen: unknown[] = [];
    actions.register('highlight', () => ({
      name: 'highlight',
      description: 'Highlights a row',
      parameters: z.object({ row: z.number() }),
      hasRender: true,
      handler: (args) => {
        seen.push(args);
        return 'done';
      },
      render: undefined,
    }));
    const { release, socket } = await connectedChat(server, actions);
    const call = {
      sessionId: 'ses_1',
      requestId: 'req_1',
      toolCallId: 'a1',
      toolName: 'highlight',
      args: { row: 2 },
    };
    socket.emit('action_call', { ...call, toolCallId: 'a0', status: 'done' });
    socket.emit('action_call', { ...call, sessionId: 'ses_other', toolCallId: 'a2', status: 'isRunning' });
    socket.emit('action_call', { ...call, status: 'isRunning' });
    socket.emit('action_call', { ...call, status: 'isRunning' });
    await until(() => server.received.length >= 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([{ row: 2 }]);
    expect(server.received).toEqual([
      ['action_call_result', { toolCallId: 'a1', sessionId: 'ses_1', result: 'done' }],
    ]);
    release();
  });

  it('a socket event whose request is not on screen shows in the turn in flight; another session’s does not', async () => {
    const server = await startServer();
    const { c } = controller(server.url);
    // A run in flight, re-joined on attach; its stream stays open (until the chat lets it go).
    const inFlight = {
      call: (route: { path: string }) =>
        route.path === '/sessions/:sessionId/run'
          ? Promise.resolve({
              run: {
                runId: 'run_1',
                requestId: 'req_live',
                sessionId: 'ses_1',
                status: 'running',
                createdAt: '2026-11-28T10:00:00.000Z',
                updatedAt: '2026-11-28T10:00:00.000Z',
                lastEventId: 0,
              },
            })
          : noRun(),
      open: (_route: unknown, args: { signal?: AbortSignal }) =>
        Promise.resolve(
          new Response(
            new ReadableStream<Uint8Array>({
              start: (ctl) =>
                args.signal?.addEventListener('abort', () =>
                  ctl.error(Object.assign(new Error('aborted'), { name: 'AbortError' })),
                ),
            }),
            { headers: { 'content-type': 'text/event-stream' } },
          ),
        ),
      authHeaders: () => Promise.resolve({}),
      renewDelegation: () => Promise.resolve(),
    } as unknown as OracleHttp;
    const release = c.retain({ http: inFlight, wsUrl: server.url });
    await until(() => c.store.getMeta().isRealTimeConnected && c.store.getMeta().status === 'streaming');
    const socket = server.sockets[0] as Socket;
    const call = { toolName: 'search', args: { q: 'x' }, status: 'isRunning' };
    socket.emit('tool_call', {
      ...call,
      sessionId: 'ses_2',
      requestId: 'req_live',
      toolCallId: 'x0',
      eventId: 'x0',
    });
    socket.emit('tool_call', {
      ...call,
      sessionId: 'ses_1',
      requestId: 'req_elsewhere',
      toolCallId: 'x1',
      eventId: 'x1',
    });
    const parts = () => c.store.getMessages().find((m) => m.id === 'req_live')?.content;
    await until(() => Array.isArray(parts()) && (parts() as unknown[]).length >= 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(parts()).toEqual([
      {
        name: 'search',
        props: {
          id: 'x1',
          toolName: 'search',
          args: { q: 'x' },
          status: 'isRunning',
          kind: 'tool',
          isToolCall: true,
          requestId: 'req_elsewhere',
          sessionId: 'ses_1',
        },
      },
    ]);
    release();
  });

  it('socket events show in the message of their request when it is on screen, settled with their result', async () => {
    const server = await startServer();
    const { c, release, socket } = await connectedChat(server);
    c.store.upsert('req_1', () => ({ id: 'req_1', type: 'ai', content: '' }));
    socket.emit('tool_call', {
      sessionId: 'ses_1',
      requestId: 'req_1',
      toolCallId: 's1',
      eventId: 's1',
      toolName: 'search',
      args: { q: 'x' },
      status: 'isRunning',
    });
    socket.emit('render_component', {
      sessionId: 'ses_1',
      requestId: 'req_1',
      eventId: 'r1',
      componentName: 'Chart',
      args: { n: 1 },
    });
    // Another session's, and one whose request is not on screen (no turn in flight): not shown.
    socket.emit('render_component', {
      sessionId: 'ses_2',
      requestId: 'req_1',
      eventId: 'r2',
      componentName: 'X',
      args: {},
    });
    socket.emit('tool_call', {
      sessionId: 'ses_1',
      requestId: 'req_unknown',
      toolCallId: 's2',
      eventId: 's2',
      toolName: 'search',
      args: {},
      status: 'isRunning',
    });
    socket.emit('browser_tool_call', {
      sessionId: 'ses_1',
      requestId: 'req_1',
      toolCallId: 'b1',
      toolName: 'count_rows',
      args: { table: 't' },
    });
    await until(() => server.received.length === 1);
    await until(() => {
      const content = c.store.getMessages().find((m) => m.id === 'req_1')?.content;
      return Array.isArray(content) && content.length === 3;
    });
    const content = c.store.getMessages().find((m) => m.id === 'req_1')?.content as unknown[];
    expect(content).toEqual([
      {
        name: 'search',
        props: {
          id: 's1',
          toolName: 'search',
          args: { q: 'x' },
          status: 'isRunning',
          kind: 'tool',
          isToolCall: true,
          requestId: 'req_1',
          sessionId: 'ses_1',
        },
      },
      { name: 'Chart', props: { id: 'r1', args: { n: 1 }, status: 'done', kind: 'component' } },
      {
        name: 'count_rows',
        props: {
          id: 'b1',
          toolName: 'count_rows',
          args: { table: 't' },
          status: 'done',
          output: '{"table":"t","rows":3}',
          kind: 'browser_tool',
          isToolCall: true,
          requestId: 'req_1',
          sessionId: 'ses_1',
        },
      },
    ]);
    release();
  });
});
