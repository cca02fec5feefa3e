// ChatController's flow, outside React, over a scripted stand-in for the HTTP client: what a send puts on the
// wire and into the store at each step, how a turn ends (finished, failed, aborted, disconnected, replaced,
// detached, payment required), re-joining a run in flight, and history paging. Every state is asserted
// exactly: these are what `useChat` shows.
import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ChatController, type ChatEndpoints } from '../../src/chat/chat-controller.js';
import { RunDisconnectedError } from '../../src/chat/chat-transport.js';
import { ActionRegistry } from '../../src/tools/action-registry.js';
import type { OracleHttp } from '../../src/http/oracle-http.js';
import { OracleRequestError } from '../../src/http/oracle-request-error.js';
import type { IChatOptions } from '../../src/types.js';

const enc = new TextEncoder();
const ts = '2026-11-28T10:00:00.000Z';

/** An answer stream the test writes into. */
function pipe() {
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
  return {
    body,
    push: (...frames: string[]) => {
      for (const f of frames) ctl.enqueue(enc.encode(f));
    },
    close: () => ctl.close(),
  };
}

const ev = (id: number, name: string, data: unknown) =>
  `id: ${id}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const runEv = (id: number, extra: Record<string, unknown> = {}) =>
  ev(id, 'run', { runId: 'run_1', requestId: 'req_1', ...extra });
const text = (id: number, content: string) => ev(id, 'message', { content, timestamp: ts });
const done = (id: number, status: string, partialText?: string) =>
  ev(id, 'done', { status, ...(partialText === undefined ? {} : { partialText }) });

/** A server tool call event of req_1 (with an output once done). */
const toolCall = (toolCallId: string, toolName: string, status: string) => ({
  sessionId: 'ses_1',
  requestId: 'req_1',
  toolCallId,
  eventId: toolCallId,
  toolName,
  args: {},
  status,
  ...(status === 'done' ? { output: 'ok' } : {}),
});

/** The run `GET /sessions/:id/run` answers with: run_1 / req_1 of ses_1, running, unless told otherwise. */
const runInfo = (extra: Record<string, unknown> = {}) => ({
  run: {
    runId: 'run_1',
    requestId: 'req_1',
    sessionId: 'ses_1',
    status: 'running',
    createdAt: ts,
    updatedAt: ts,
    lastEventId: 0,
    ...extra,
  },
});

function abortable(body: ReadableStream<Uint8Array>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    start(c) {
      signal.addEventListener(
        'abort',
        () => {
          c.error(Object.assign(new Error('The operation was aborted'), { name: 'AbortError' }));
          void reader.cancel().catch(() => undefined);
        },
        { once: true },
      );
    },
    async pull(c) {
      const { done, value } = await reader.read();
      if (signal.aborted) return;
      if (done) c.close();
      else c.enqueue(value);
    },
  });
}

const sseResponse = (body: ReadableStream<Uint8Array> | null, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { 'content-type': 'text/event-stream', ...headers } });

type Handler = (args: Record<string, unknown>) => unknown;

/**
 * An HTTP client whose every route answers from `routes` (by "METHOD /path"): a value resolves, an Error (or
 * a function that throws) rejects. A route with no answer rejects 404, so "no run in flight" is the default.
 */
function scriptedHttp(routes: Record<string, Handler> = {}) {
  const calls: { route: string; args: Record<string, unknown> }[] = [];
  const answer = (route: AppRoute, args: Record<string, unknown>): Promise<unknown> => {
    const key = `${route.method} ${route.path}`;
    calls.push({ route: key, args });
    const handler = routes[key];
    if (!handler)
      return Promise.reject(new OracleRequestError('Not found', { status: 404, code: 'not_found' }));
    try {
      const out = handler(args);
      return out instanceof Error ? Promise.reject(out) : Promise.resolve(out);
    } catch (e) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the thrown value as it is
      return Promise.reject(e);
    }
  };
  // Like fetch: aborting the request's signal errors its body.
  const open = async (route: AppRoute, args: Record<string, unknown>): Promise<unknown> => {
    const res = await answer(route, args);
    const signal = args['signal'] as AbortSignal | undefined;
    if (!(res instanceof Response) || !res.body || !signal) return res;
    return new Response(abortable(res.body, signal), { headers: res.headers });
  };
  const http = {
    call: answer,
    open,
    authHeaders: () => Promise.resolve({}),
  } as unknown as OracleHttp;
  return { http, calls, routes: (key: string) => calls.filter((c) => c.route === key) };
}

const SEND = 'POST /messages/:sessionId';
const REJOIN = 'GET /runs/:runId';
const CURRENT = 'GET /sessions/:sessionId/run';
const ABORT = 'POST /messages/abort';
const PAGE = 'GET /sessions/:sessionId/messages';

function chat(
  http: OracleHttp,
  options: Partial<IChatOptions> = {},
  deps: { actions?: ActionRegistry; sessionId?: string } = {},
) {
  const onTurnEnd = vi.fn();
  const onToolCallDone = vi.fn();
  const onPaymentRequiredError = vi.fn();
  const endpoints: ChatEndpoints = { http, wsUrl: undefined };
  const c = new ChatController({
    sessionId: deps.sessionId ?? 'ses_1',
    userDid: 'did:key:z6MkUser',
    actions: deps.actions ?? new ActionRegistry(),
    resolve: () => Promise.resolve(endpoints),
    onTurnEnd,
    onToolCallDone,
  });
  c.join(() => ({
    oracleDid: 'did:ixo:oracle',
    sessionId: deps.sessionId ?? 'ses_1',
    onPaymentRequiredError,
    streamingMode: 'immediate',
    rejoin: { attempts: 2, baseMs: 1, maxMs: 2, jitter: 0 },
    ...options,
  }));
  return { c, endpoints, onTurnEnd, onToolCallDone, onPaymentRequiredError };
}

/** The smallest hook options, and a controller without the optional callbacks. */
const base = { oracleDid: 'o', sessionId: 'ses_1', onPaymentRequiredError: () => undefined };
const bare = (http: OracleHttp) =>
  new ChatController({
    sessionId: 'ses_1',
    userDid: 'did:key:z6MkUser',
    actions: new ActionRegistry(),
    resolve: () => Promise.resolve({ http, wsUrl: undefined }),
  });

/** Waits (a few ms at a time, at most 2 s) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

const ids = (h: ReturnType<typeof scriptedHttp>, key: string) => h.routes(key).length;

describe('ChatController.sendMessage', () => {
  it('shows the question at once, streams the answer into one message, lands in ready with the run ended', async () => {
    const answer = pipe();
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
    });
    const { c, onTurnEnd } = chat(h.http, { model: 'fast-model' });
    const statuses: string[] = [c.store.getMeta().status];
    c.store.subscribeMeta(() => {
      const s = c.store.getMeta().status;
      if (statuses.at(-1) !== s) statuses.push(s);
    });
    const sending = c.sendMessage('Hello?', { metadata: { page: 'home' } });
    // The optimistic question, before anything reached the oracle.
    const question = c.store.current()[0];
    expect(question).toMatchObject({ type: 'human', content: 'Hello?' });
    expect(question?.id).toMatch(/^local:/);
    expect(c.store.getMeta()).toMatchObject({ status: 'submitted', sendMessageError: undefined });
    expect(c.store.getMeta().run).toEqual({
      runId: null,
      requestId: null,
      reconnecting: false,
      resumed: false,
      ended: null,
    });

    await until(() => c.store.getMeta().status === 'streaming');
    expect(c.store.getMeta().run).toMatchObject({ runId: 'run_1', requestId: 'req_1', ended: null });
    const body = h.routes(SEND)[0]?.args['body'] as Record<string, unknown>;
    expect(body).toEqual({
      message: 'Hello?',
      stream: true,
      metadata: { page: 'home' },
      model: 'fast-model',
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
    expect(h.routes(SEND)[0]?.args['params']).toEqual({ sessionId: 'ses_1' });

    answer.push(runEv(1), text(2, 'Hi'));
    await until(() => c.store.getMessages().at(-1)?.content === 'Hi');
    answer.push(text(3, ' there'), done(4, 'finished'));
    await sending;
    expect(c.store.getMessages().map((m) => [m.type, m.id === question?.id ? 'q' : m.id, m.content])).toEqual(
      [
        ['human', 'q', 'Hello?'],
        ['ai', 'req_1', 'Hi there'],
      ],
    );
    expect(c.store.getMeta().status).toBe('ready');
    expect(c.store.getMeta().run).toEqual({
      runId: 'run_1',
      requestId: 'req_1',
      reconnecting: false,
      resumed: false,
      ended: 'finished',
    });
    expect(statuses).toEqual(['ready', 'submitted', 'streaming', 'ready']);
    expect(onTurnEnd).toHaveBeenCalledTimes(1);
    // The stream was not followed any further: no re-join after done.
    expect(ids(h, REJOIN)).toBe(0);
  });

  it('the question’s local id is a UUID, or, without crypto.randomUUID (a page on plain http), one of its own', () => {
    const h = scriptedHttp({
      [SEND]: () => sseResponse(null, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
    });
    const { c } = chat(h.http);
    void c.sendMessage('one');
    expect(c.store.current()[0]?.id).toMatch(
      /^local:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    vi.stubGlobal('crypto', {});
    try {
      const other = chat(h.http).c;
      void other.sendMessage('two');
      void other.sendMessage('three');
      const [first, second] = other.store.current().map((m) => m.id);
      expect(first).toMatch(/^local:local-[0-9a-z]+-[0-9a-z]+$/);
      expect(second).toMatch(/^local:local-[0-9a-z]+-[0-9a-z]+$/);
      expect(first).not.toBe(second);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('no model chosen: the body names none', async () => {
    const answer = pipe();
    const h = scriptedHttp({ [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1' }) });
    const { c } = chat(h.http);
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(done(1, 'finished'));
    await sending;
    expect(Object.keys(h.routes(SEND)[0]?.args['body'] as object).sort()).toEqual([
      'message',
      'stream',
      'timezone',
    ]);
    expect(c.store.getMeta().run).toMatchObject({ runId: null, requestId: 'req_1', ended: 'finished' });
  });

  it('no session yet: fails at once with the text that says what to do, and calls nothing', async () => {
    const h = scriptedHttp();
    const { c } = chat(h.http, {}, { sessionId: '' });
    await c.sendMessage('Hi');
    expect(c.store.getMeta().status).toBe('error');
    expect(c.store.getMeta().sendMessageError?.message).toBe(
      'No session yet: create one with useOracleSessions().createSession() and pass its sessionId to useChat',
    );
    expect(h.calls).toEqual([]);
    expect(c.store.getMessages()).toEqual([]);
  });

  it('a turn that fails: the error event’s text is the send error; without one, “The turn failed”', async () => {
    for (const [frames, message] of [
      [
        [
          ev(2, 'error', { error: 'The model failed to answer; try again.', timestamp: ts }),
          done(3, 'failed'),
        ],
        'The model failed to answer; try again.',
      ],
      [[done(2, 'failed', 'par')], 'The turn failed'],
    ] as const) {
      const answer = pipe();
      const h = scriptedHttp({
        [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
      });
      const { c, onTurnEnd } = chat(h.http);
      const sending = c.sendMessage('Hi');
      await until(() => ids(h, SEND) === 1);
      answer.push(runEv(1), ...frames);
      await sending;
      expect(c.store.getMeta().status).toBe('error');
      expect(c.store.getMeta().sendMessageError?.message).toBe(message);
      expect(c.store.getMeta().run).toMatchObject({ ended: 'failed', reconnecting: false });
      expect(onTurnEnd).toHaveBeenCalledTimes(1);
    }
  });

  it('402: the payment callback gets the claims, the send error is the oracle’s, status error', async () => {
    const refused = new OracleRequestError('Payment required', {
      status: 402,
      outstandingClaims: ['c1', 'c2'],
    });
    const h = scriptedHttp({ [SEND]: () => refused });
    const { c, onPaymentRequiredError, onTurnEnd } = chat(h.http);
    await c.sendMessage('Hi');
    expect(onPaymentRequiredError).toHaveBeenCalledExactlyOnceWith(['c1', 'c2']);
    expect(c.store.getMeta().status).toBe('error');
    expect(c.store.getMeta().sendMessageError).toBe(refused);
    expect(onTurnEnd).not.toHaveBeenCalled();
    // A 402 without claims still calls back, with none.
    const bare = scriptedHttp({ [SEND]: () => new OracleRequestError('Payment required', { status: 402 }) });
    const second = chat(bare.http);
    await second.c.sendMessage('Hi');
    expect(second.onPaymentRequiredError).toHaveBeenCalledExactlyOnceWith([]);
  });

  it('a failure that is not a 402 calls no payment callback; a thrown non-Error becomes an Error of its text', async () => {
    const h = scriptedHttp({
      [SEND]: () => {
        throw 'socket hang up'; // eslint-disable-line @typescript-eslint/only-throw-error -- what some fetch shims throw
      },
    });
    const { c, onPaymentRequiredError } = chat(h.http);
    await c.sendMessage('Hi');
    expect(onPaymentRequiredError).not.toHaveBeenCalled();
    const error = c.store.getMeta().sendMessageError;
    expect(error).toBeInstanceOf(Error);
    expect(error?.message).toBe('socket hang up');
    expect(c.store.getMeta().run.reconnecting).toBe(false);
  });

  it('a send aborted (AbortError) lands in ready with no error', async () => {
    const aborted = Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
    const h = scriptedHttp({ [SEND]: () => aborted });
    const { c } = chat(h.http);
    await c.sendMessage('Hi');
    expect(c.store.getMeta()).toMatchObject({ status: 'ready', sendMessageError: undefined });
  });

  it('a second message while the first streams: the first stops quietly, the second owns the status', async () => {
    const first = pipe();
    const second = pipe();
    const streams = [first, second];
    let n = 0;
    const h = scriptedHttp({
      [SEND]: () => {
        n++;
        return sseResponse(streams[n - 1]?.body ?? null, {
          'x-request-id': `req_${n}`,
          'x-run-id': `run_${n}`,
        });
      },
    });
    const { c, onTurnEnd } = chat(h.http);
    const one = c.sendMessage('one');
    await until(() => c.store.getMeta().status === 'streaming');
    first.push(text(1, 'partial'));
    await until(() => c.store.find('req_1')?.content === 'partial');
    const two = c.sendMessage('two');
    await one; // stopped reading, quietly
    await until(() => c.store.getMeta().run.requestId === 'req_2');
    expect(c.store.getMeta().status).toBe('streaming');
    expect(c.store.getMeta().sendMessageError).toBeUndefined();
    second.push(text(1, 'answer two'), done(2, 'finished'));
    await two;
    expect(c.store.getMeta().status).toBe('ready');
    expect(c.store.find('req_2')?.content).toBe('answer two');
    expect(onTurnEnd).toHaveBeenCalledTimes(1);
  });

  it('a server tool call that ends is reported once by name; its start and a replay are not', async () => {
    const answer = pipe();
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
    });
    const { c, onToolCallDone } = chat(h.http);
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    const call = (status: string) => toolCall('t1', 'set_user_preferences', status);
    answer.push(runEv(1), ev(2, 'tool_call', call('isRunning')), ev(3, 'tool_call', call('done')));
    // The same event again (a re-join's overlap): not reported again.
    answer.push(ev(3, 'tool_call', call('done')), done(4, 'finished'));
    await sending;
    expect(onToolCallDone.mock.calls).toEqual([['set_user_preferences']]);
  });

  it('only a server tool call that ends is reported: not one still running, nor a browser action that ends', async () => {
    const answer = pipe();
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
    });
    const { c, onToolCallDone } = chat(h.http);
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(
      runEv(1),
      ev(2, 'tool_call', toolCall('t1', 'still_running', 'isRunning')),
      ev(3, 'tool_call', toolCall('t2', 'quick_one', 'isRunning')),
      ev(4, 'tool_call', toolCall('t2', 'quick_one', 'done')),
      // A browser action that ends is not a server tool call.
      ev(5, 'action_call', {
        sessionId: 'ses_1',
        requestId: 'req_1',
        toolCallId: 'a1',
        toolName: 'an_action',
        status: 'done',
        output: 'ok',
      }),
      done(6, 'finished'),
    );
    await sending;
    expect(onToolCallDone.mock.calls).toEqual([['quick_one']]);
  });

  it('without onTurnEnd and onToolCallDone (both optional), a turn with a tool call ends in ready', async () => {
    const answer = pipe();
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
    });
    const c = bare(h.http);
    c.join(() => base);
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(
      runEv(1),
      ev(2, 'tool_call', toolCall('t1', 'set_user_preferences', 'done')),
      text(3, 'Saved.'),
      done(4, 'finished'),
    );
    await sending;
    expect(c.store.getMeta()).toMatchObject({
      status: 'ready',
      sendMessageError: undefined,
      run: { ended: 'finished' },
    });
    expect(c.store.find('req_1')?.content).toContain('Saved.');
  });

  it('advertises the browser tools of every hook (the first hook wins a name) and the actions, as JSON schema', async () => {
    const answer = pipe();
    const h = scriptedHttp({ [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1' }) });
    const actions = new ActionRegistry();
    actions.register('highlight', () => ({
      name: 'highlight',
      description: 'Highlights a row',
      parameters: z.object({ row: z.number() }),
      hasRender: true,
      handler: () => undefined,
      render: undefined,
    }));
    const tool = (description: string) => ({
      toolName: 'pick',
      description,
      schema: z.object({ colour: z.string() }),
      fn: () => 'red',
    });
    const { c } = chat(h.http, { browserTools: { pick: tool('first hook') } }, { actions });
    c.join(() => ({
      oracleDid: 'did:ixo:oracle',
      sessionId: 'ses_1',
      onPaymentRequiredError: () => undefined,
      browserTools: { pick: tool('second hook') },
    }));
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(done(1, 'finished'));
    await sending;
    const body = h.routes(SEND)[0]?.args['body'] as Record<string, unknown>;
    const colour = {
      type: 'object',
      properties: { colour: { type: 'string' } },
      required: ['colour'],
      additionalProperties: false,
    };
    expect(body['tools']).toEqual([{ name: 'pick', description: 'first hook', schema: colour }]);
    expect(body['agActions']).toEqual([
      {
        name: 'highlight',
        description: 'Highlights a row',
        schema: {
          type: 'object',
          properties: { row: { type: 'number' } },
          required: ['row'],
          additionalProperties: false,
        },
        hasRender: true,
      },
    ]);
  });

  it('actions without browser tools advertise agActions only; tools without actions, tools only', async () => {
    const send = async (options: Partial<IChatOptions>, actions = new ActionRegistry()) => {
      const answer = pipe();
      const h = scriptedHttp({ [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1' }) });
      const { c } = chat(h.http, options, { actions });
      const sending = c.sendMessage('Hi');
      await until(() => ids(h, SEND) === 1);
      answer.push(done(1, 'finished'));
      await sending;
      return Object.keys(h.routes(SEND)[0]?.args['body'] as object).sort();
    };
    const actions = new ActionRegistry();
    actions.register('a', () => ({
      name: 'a',
      description: 'd',
      parameters: z.object({}),
      hasRender: false,
      handler: () => undefined,
      render: undefined,
    }));
    expect(await send({}, actions)).toEqual(['agActions', 'message', 'stream', 'timezone']);
    const tools = { t: { toolName: 't', description: 'd', schema: z.object({}), fn: () => 1 } };
    expect(await send({ browserTools: tools })).toEqual(['message', 'stream', 'timezone', 'tools']);
  });
});

describe('ChatController: a dropped stream', () => {
  it('re-joins after the last event id, shows reconnecting meanwhile, and finishes the answer', async () => {
    const answer = pipe();
    const rest = pipe();
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
      [REJOIN]: () => sseResponse(rest.body),
    });
    const { c } = chat(h.http);
    const reconnecting: boolean[] = [];
    c.store.subscribeMeta(() => {
      const r = c.store.getMeta().run.reconnecting;
      if (reconnecting.at(-1) !== r) reconnecting.push(r);
    });
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(runEv(1), text(2, 'Hel'));
    answer.close();
    await until(() => ids(h, REJOIN) === 1);
    expect(h.routes(REJOIN)[0]?.args).toMatchObject({ params: { runId: 'run_1' }, query: { after: 2 } });
    rest.push(text(3, 'lo'), done(4, 'finished'));
    await sending;
    expect(c.store.find('req_1')?.content).toBe('Hello');
    expect(reconnecting).toEqual([false, true, false]);
    expect(c.store.getMeta()).toMatchObject({
      status: 'ready',
      run: { ended: 'finished', reconnecting: false },
    });
  });

  it('a run that cannot be re-joined ends disconnected: status error, the error says so', async () => {
    const answer = pipe();
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
      [REJOIN]: () => new OracleRequestError('Run not found', { status: 404, code: 'run_not_found' }),
    });
    const { c, onTurnEnd } = chat(h.http);
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(runEv(1), text(2, 'Hel'));
    answer.close();
    await sending;
    expect(c.store.getMeta().status).toBe('error');
    expect(c.store.getMeta().sendMessageError).toBeInstanceOf(RunDisconnectedError);
    expect(c.store.getMeta().run).toMatchObject({ ended: 'disconnected', reconnecting: false });
    expect(c.store.find('req_1')?.content).toBe('Hel');
    expect(onTurnEnd).not.toHaveBeenCalled();
  });
});

describe('ChatController.abortStream', () => {
  it('asks the oracle first, lets the stream deliver done aborted, lands in ready keeping the partial answer', async () => {
    const answer = pipe();
    const order: string[] = [];
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
      [ABORT]: () => {
        order.push('abort asked');
        answer.push(done(3, 'aborted', 'Hel'));
        return { success: true };
      },
    });
    const { c } = chat(h.http);
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(runEv(1), text(2, 'Hel'));
    await until(() => c.store.find('req_1')?.content === 'Hel');
    await c.abortStream();
    await sending;
    expect(order).toEqual(['abort asked']);
    expect(h.routes(ABORT)[0]?.args).toEqual({ body: { sessionId: 'ses_1' } });
    expect(c.store.getMeta()).toMatchObject({ status: 'ready', sendMessageError: undefined });
    expect(c.store.getMeta().run).toMatchObject({ ended: 'aborted', reconnecting: false });
    expect(c.store.find('req_1')).toMatchObject({ content: 'Hel', runStatus: 'aborted' });
    // Nothing more to abort.
    await c.abortStream();
    expect(ids(h, ABORT)).toBe(1);
  });

  it('an oracle that neither answers the abort nor ends the stream: after 1.5 s the turn stops here, marked aborted', async () => {
    const answer = pipe();
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
      [ABORT]: () => new OracleRequestError('Unavailable', { status: 503 }),
    });
    const { c } = chat(h.http);
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(runEv(1), text(2, 'Hel'));
    await until(() => c.store.find('req_1')?.content === 'Hel');
    const started = Date.now();
    await c.abortStream();
    const waited = Date.now() - started;
    await sending;
    expect(waited).toBeGreaterThanOrEqual(1_400);
    expect(c.store.getMeta()).toMatchObject({ status: 'ready', sendMessageError: undefined });
    expect(c.store.getMeta().run).toMatchObject({ ended: 'aborted', reconnecting: false });
    expect(c.store.find('req_1')).toMatchObject({ content: 'Hel', isComplete: true, runStatus: 'aborted' });
    // No re-join of a stream the user stopped.
    expect(ids(h, REJOIN)).toBe(0);
  });

  it('with no turn in flight does nothing', async () => {
    const h = scriptedHttp();
    const { c } = chat(h.http);
    await c.abortStream();
    expect(h.calls).toEqual([]);
    expect(c.store.getMeta().status).toBe('ready');
  });
});

describe('ChatController: detach and resume', () => {
  it('detachStream stops reading (ready), resumeRun re-joins the run in flight from its first event', async () => {
    const answer = pipe();
    const again = pipe();
    let inFlight = true;
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
      [CURRENT]: () =>
        inFlight ? runInfo({ lastEventId: 2 }) : new OracleRequestError('No run', { status: 404 }),
      [REJOIN]: () => sseResponse(again.body),
    });
    const { c } = chat(h.http);
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(runEv(1), text(2, 'Hel'));
    await until(() => c.store.find('req_1')?.content === 'Hel');
    c.detachStream();
    expect(c.store.getMeta()).toMatchObject({ status: 'ready', run: { reconnecting: false } });
    await sending;
    c.detachStream(); // nothing to detach: no change
    expect(c.store.getMeta().status).toBe('ready');

    const resuming = c.resumeRun();
    await until(() => ids(h, REJOIN) === 1);
    // From the run's first event: the text is rebuilt, not appended to what was shown.
    expect(h.routes(REJOIN)[0]?.args).toMatchObject({ params: { runId: 'run_1' }, query: { after: 0 } });
    expect(c.store.getMeta().status).toBe('streaming');
    expect(c.store.getMeta().run).toMatchObject({ runId: 'run_1', requestId: 'req_1', ended: null });
    expect(c.store.find('req_1')?.content).toBe('');
    again.push(runEv(1), text(2, 'Hel'), text(3, 'lo'), done(4, 'finished'));
    await resuming;
    expect(c.store.find('req_1')).toMatchObject({ type: 'ai', content: 'Hello' });
    expect(c.store.getMeta()).toMatchObject({ status: 'ready', run: { ended: 'finished' } });

    inFlight = false;
    await c.resumeRun();
    expect(ids(h, REJOIN)).toBe(1);
  });

  it('the last hook leaving stops reading the turn in flight (its request is aborted); the run goes on at the oracle', async () => {
    const answer = pipe();
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
    });
    const { c, endpoints } = chat(h.http);
    const release = c.retain(endpoints);
    const sending = c.sendMessage('Hi');
    await until(() => ids(h, SEND) === 1);
    answer.push(runEv(1), text(2, 'Hel'));
    await until(() => c.store.find('req_1')?.content === 'Hel');
    const signal = h.routes(SEND)[0]?.args['signal'] as AbortSignal;
    expect(signal.aborted).toBe(false);
    release();
    expect(signal.aborted).toBe(true);
    await sending;
    // Nothing asked the oracle to stop.
    expect(ids(h, ABORT)).toBe(0);
  });

  it('resumeRun does nothing while a turn is being read, or when the run found has ended', async () => {
    const answer = pipe();
    const h = scriptedHttp({
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
      [CURRENT]: () => runInfo({ runId: 'run_0', requestId: 'req_0', status: 'finished', lastEventId: 9 }),
    });
    const { c, endpoints } = chat(h.http);
    // Not attached and nothing sent: no transport yet, no call.
    await c.resumeRun();
    expect(ids(h, CURRENT)).toBe(0);
    const sending = c.sendMessage('Hi');
    await until(() => c.store.getMeta().status === 'streaming');
    await c.resumeRun();
    expect(ids(h, CURRENT)).toBe(0);
    answer.push(done(1, 'finished'));
    await sending;
    await c.resumeRun();
    expect(ids(h, CURRENT)).toBe(1);
    expect(ids(h, REJOIN)).toBe(0);
    expect(c.store.find('req_0')).toBeUndefined();
    void endpoints;
  });
});

describe('ChatController: history', () => {
  const dto = (id: string, type: 'human' | 'ai', content: string) => ({ id, type, content });

  it('attach loads the newest page (the hook’s page size), shows loading meanwhile, then looks for a run in flight', async () => {
    let answerPage!: (page: unknown) => void;
    const h = scriptedHttp({
      [PAGE]: () => new Promise((resolve) => (answerPage = resolve)),
    });
    const { c, endpoints } = chat(h.http, { historyPageSize: 7 });
    const release = c.retain(endpoints);
    await until(() => ids(h, PAGE) === 1);
    expect(h.routes(PAGE)[0]?.args).toMatchObject({ params: { sessionId: 'ses_1' }, query: { limit: 7 } });
    expect(c.store.getMeta().isLoading).toBe(true);
    expect(ids(h, CURRENT)).toBe(0);
    answerPage({
      messages: [dto('m1', 'human', 'q'), dto('m2', 'ai', 'a')],
      prevCursor: 'cur_1',
      hasOlder: true,
    });
    await until(() => ids(h, CURRENT) === 1);
    expect(c.store.getMessages().map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(c.store.getMeta()).toMatchObject({ isLoading: false, hasOlderMessages: true, error: undefined });
    release();
  });

  it('only the first load shows loading: a refetch replaces the thread without it', async () => {
    const pages: ((page: unknown) => void)[] = [];
    const h = scriptedHttp({
      [PAGE]: () => new Promise((resolve) => pages.push(resolve)),
    });
    const { c, endpoints } = chat(h.http);
    const release = c.retain(endpoints);
    await until(() => pages.length === 1);
    expect(c.store.getMeta().isLoading).toBe(true);
    pages[0]?.({ messages: [dto('m1', 'ai', 'first')], prevCursor: null, hasOlder: false });
    await until(() => ids(h, CURRENT) === 1);
    expect(c.store.getMeta().isLoading).toBe(false);
    const refetch = c.refetchMessages();
    await until(() => pages.length === 2);
    expect(c.store.getMeta().isLoading).toBe(false);
    pages[1]?.({
      messages: [dto('m1', 'ai', 'first'), dto('m2', 'ai', 'second')],
      prevCursor: null,
      hasOlder: false,
    });
    await refetch;
    expect(c.store.getMessages().map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(c.store.getMeta().isLoading).toBe(false);
    release();
  });

  it('loadOlderMessages pages back from the cursor, prepends, and stops when there is none', async () => {
    const pages = [
      { messages: [dto('m3', 'ai', 'newest')], prevCursor: 'cur_2', hasOlder: true },
      {
        messages: [dto('m1', 'human', 'oldest'), dto('m2', 'ai', 'older')],
        prevCursor: null,
        hasOlder: false,
      },
    ];
    const h = scriptedHttp({ [PAGE]: () => pages.shift() });
    const { c, endpoints } = chat(h.http, { historyPageSize: 2 });
    const release = c.retain(endpoints);
    await until(() => ids(h, CURRENT) === 1);
    await c.loadOlderMessages();
    expect(h.routes(PAGE)[1]?.args).toMatchObject({ query: { limit: 2, before: 'cur_2' } });
    expect(c.store.getMessages().map((m) => m.content)).toEqual(['oldest', 'older', 'newest']);
    expect(c.store.getMeta().hasOlderMessages).toBe(false);
    await c.loadOlderMessages();
    expect(ids(h, PAGE)).toBe(2);
    release();
  });

  it('a failed older page sets the error and keeps the thread', async () => {
    let n = 0;
    const failure = new OracleRequestError('Unavailable', { status: 503 });
    const h = scriptedHttp({
      [PAGE]: () =>
        n++ === 0 ? { messages: [dto('m2', 'ai', 'a')], prevCursor: 'cur', hasOlder: true } : failure,
    });
    const { c, endpoints } = chat(h.http);
    const release = c.retain(endpoints);
    await until(() => ids(h, CURRENT) === 1);
    await c.loadOlderMessages();
    expect(c.store.getMeta().error).toBe(failure);
    expect(c.store.getMessages().map((m) => m.id)).toEqual(['m2']);
    expect(c.store.getMeta().hasOlderMessages).toBe(true);
    release();
  });

  it('a failed load is status error (402 also calls the payment callback); the next good load recovers ready', async () => {
    let answer: unknown = new OracleRequestError('Payment required', {
      status: 402,
      outstandingClaims: ['c9'],
    });
    const h = scriptedHttp({ [PAGE]: () => answer });
    const { c, endpoints, onPaymentRequiredError } = chat(h.http);
    const release = c.retain(endpoints);
    await until(() => c.store.getMeta().status === 'error');
    expect(c.store.getMeta()).toMatchObject({ isLoading: false, error: answer });
    expect(onPaymentRequiredError).toHaveBeenCalledExactlyOnceWith(['c9']);
    answer = { messages: [dto('m1', 'ai', 'back')], prevCursor: null, hasOlder: false };
    await c.refetchMessages();
    expect(c.store.getMeta()).toMatchObject({ status: 'ready', error: undefined, isLoading: false });
    expect(c.store.getMessages().map((m) => m.content)).toEqual(['back']);
    release();
  });

  /** An attached chat whose history answers `history()`, streaming "Hel" in answer to "Hi". */
  async function streamingHi(history: () => ReturnType<typeof dto>[]) {
    const answer = pipe();
    const h = scriptedHttp({
      [PAGE]: () => ({ messages: history(), prevCursor: null, hasOlder: false }),
      [SEND]: () => sseResponse(answer.body, { 'x-request-id': 'req_1', 'x-run-id': 'run_1' }),
    });
    const { c, endpoints } = chat(h.http);
    const release = c.retain(endpoints);
    await until(() => ids(h, CURRENT) === 1);
    const sending = c.sendMessage('Hi');
    await until(() => c.store.getMeta().status === 'streaming');
    answer.push(runEv(1), text(2, 'Hel'));
    await until(() => c.store.find('req_1')?.content === 'Hel');
    return { c, answer, sending, release };
  }

  it('a refetch during a turn keeps the turn’s question and answer that history does not hold yet, once', async () => {
    const history = [dto('m1', 'ai', 'earlier')];
    const { c, answer, sending, release } = await streamingHi(() => [...history]);
    await c.refetchMessages();
    expect(c.store.getMessages().map((m) => [m.type, m.content])).toEqual([
      ['ai', 'earlier'],
      ['human', 'Hi'],
      ['ai', 'Hel'],
    ]);
    // A stored question of another text is not this turn's: the optimistic one stays. Nor is an earlier
    // question of the same text that an answer follows (the user said "Hi" before).
    history.unshift(dto('q_before', 'human', 'Hi'));
    await c.refetchMessages();
    expect(c.store.getMessages().map((m) => (m.id.startsWith('local:') ? 'local' : m.id))).toEqual([
      'q_before',
      'm1',
      'local',
      'req_1',
    ]);
    history.push(dto('q_other', 'human', 'Something else'));
    await c.refetchMessages();
    expect(c.store.getMessages().map((m) => (m.id.startsWith('local:') ? 'local' : m.id))).toEqual([
      'q_before',
      'm1',
      'q_other',
      'local',
      'req_1',
    ]);
    // The oracle has stored the question (under its own id) but not the answer yet: one question, the
    // stored one, and the answer as streamed so far.
    history.push(dto('q_stored', 'human', 'Hi'));
    await c.refetchMessages();
    expect(c.store.getMessages().map((m) => [m.id, m.content])).toEqual([
      ['q_before', 'Hi'],
      ['m1', 'earlier'],
      ['q_other', 'Something else'],
      ['q_stored', 'Hi'],
      ['req_1', 'Hel'],
    ]);
    // Both stored: no duplicate of either.
    history.push(dto('req_1', 'ai', 'Hel'));
    await c.refetchMessages();
    expect(c.store.getMessages().map((m) => m.id)).toEqual([
      'q_before',
      'm1',
      'q_other',
      'q_stored',
      'req_1',
    ]);
    // A refetch while the turn is in flight leaves its status alone.
    expect(c.store.getMeta().status).toBe('streaming');
    answer.push(done(3, 'finished'));
    await sending;
    release();
  });

  it('a refetch during a turn that finds an empty history keeps the turn, with no error', async () => {
    const { c, answer, sending, release } = await streamingHi(() => []);
    await c.refetchMessages();
    expect(c.store.getMessages().map((m) => [m.type, m.content])).toEqual([
      ['human', 'Hi'],
      ['ai', 'Hel'],
    ]);
    expect(c.store.getMeta()).toMatchObject({ status: 'streaming', error: undefined });
    answer.push(done(3, 'finished'));
    await sending;
    release();
  });

  it('a page that arrives after the chat was released and attached again is dropped, and starts nothing', async () => {
    // A remount: the first mount's history request is still out when the second mount's lands.
    const answers: ((page: unknown) => void)[] = [];
    const failures: ((e: Error) => void)[] = [];
    const h = scriptedHttp({
      [PAGE]: () =>
        new Promise((resolve, reject) => {
          answers.push(resolve);
          failures.push(reject);
        }),
    });
    const { c, endpoints } = chat(h.http);
    c.retain(endpoints)();
    const release = c.retain(endpoints);
    await until(() => ids(h, PAGE) === 2);
    answers[1]?.({ messages: [dto('new', 'ai', 'fresh')], prevCursor: null, hasOlder: false });
    await until(() => ids(h, CURRENT) === 1);
    answers[0]?.({ messages: [dto('old', 'ai', 'stale')], prevCursor: 'cur_old', hasOlder: true });
    await new Promise((r) => setTimeout(r, 30));
    expect(c.store.getMessages().map((m) => m.id)).toEqual(['new']);
    expect(c.store.getMeta()).toMatchObject({ hasOlderMessages: false, error: undefined });
    // The stale mount looks for no run of its own.
    expect(ids(h, CURRENT)).toBe(1);
    release();

    // A stale request that fails reports nothing either.
    const h2 = scriptedHttp({
      [PAGE]: () =>
        new Promise((resolve, reject) => {
          answers.push(resolve);
          failures.push(reject);
        }),
    });
    const second = chat(h2.http);
    second.c.retain(second.endpoints)();
    const release2 = second.c.retain(second.endpoints);
    await until(() => ids(h2, PAGE) === 2);
    answers[3]?.({ messages: [dto('m1', 'human', 'q')], prevCursor: null, hasOlder: false });
    await until(() => ids(h2, CURRENT) === 1);
    failures[2]?.(new OracleRequestError('Payment required', { status: 402, code: 'payment_required' }));
    await new Promise((r) => setTimeout(r, 30));
    expect(second.c.store.getMeta()).toMatchObject({ status: 'ready', error: undefined });
    expect(second.onPaymentRequiredError).not.toHaveBeenCalled();
    release2();
  });

  it('a run found in flight after the chat was released is not re-joined', async () => {
    let answerRun!: (run: unknown) => void;
    const h = scriptedHttp({
      [PAGE]: () => ({ messages: [], prevCursor: null, hasOlder: false }),
      [CURRENT]: () => new Promise((resolve) => (answerRun = resolve)),
    });
    const { c, endpoints } = chat(h.http);
    const release = c.retain(endpoints);
    await until(() => ids(h, CURRENT) === 1);
    release();
    answerRun(runInfo({ lastEventId: 3 }));
    await new Promise((r) => setTimeout(r, 30));
    expect(ids(h, REJOIN)).toBe(0);
    expect(c.store.find('req_1')).toBeUndefined();
    expect(c.store.getMeta().status).not.toBe('streaming');
  });

  it('refetch with no endpoints gives the messages as they are and calls nothing', async () => {
    const h = scriptedHttp();
    const { c } = chat(h.http);
    expect(await c.refetchMessages()).toEqual([]);
    expect(h.calls).toEqual([]);
    expect(c.store.getMeta()).toMatchObject({ status: 'ready', error: undefined, isLoading: false });
  });
});

describe('ChatController.join', () => {
  it('the first hook’s streaming mode sets the store’s; a hook that leaves no longer counts', () => {
    const c = bare(scriptedHttp().http);
    const leave = c.join(() => ({ ...base, streamingMode: 'immediate' }));
    expect(c.store.mode).toBe('immediate');
    leave();
    leave(); // twice: still fine
    c.join(() => base);
    expect(c.store.mode).toBe('batched');
  });

  it('a hook that leaves twice takes only itself out; a later hook leaving leaves the first in charge', () => {
    const c = bare(scriptedHttp().http);
    const leaveA = c.join(() => ({ ...base, streamingMode: 'batched' }));
    c.join(() => ({ ...base, streamingMode: 'immediate' }));
    leaveA();
    leaveA();
    // The second hook is the first now (its mode wins over the one joining).
    const leaveC = c.join(() => ({ ...base, streamingMode: 'batched' }));
    expect(c.store.mode).toBe('immediate');
    const leaveD = c.join(() => ({ ...base, streamingMode: 'batched' }));
    leaveD();
    leaveC();
    c.join(() => ({ ...base, streamingMode: 'batched' }));
    expect(c.store.mode).toBe('immediate');
  });
});
