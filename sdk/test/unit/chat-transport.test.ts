// The transport alone, over a recording stand-in for the HTTP client: opening a turn, finding a run in flight,
// and following a run across drops (the re-join's `after`, its attempts, 404, abort).
import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it, vi } from 'vitest';
import { ChatTransport, RunDisconnectedError } from '../../src/chat/chat-transport.js';
import type { OracleHttp } from '../../src/http/oracle-http.js';
import { OracleRequestError } from '../../src/http/oracle-request-error.js';

const enc = new TextEncoder();
const ts = '2026-11-28T10:00:00.000Z';
const frame = (id: number, text: string) =>
  `id: ${id}\nevent: message\ndata: {"content":"${text}","timestamp":"${ts}"}\n\n`;
const body = (...frames: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const f of frames) c.enqueue(enc.encode(f));
      c.close();
    },
  });

type Answer = Response | Error | (() => Response | Error);

/** Answers each `open` with the next of `answers`; records the route and args of every call. */
function httpWith(answers: Answer[], calls: unknown[] = []) {
  const opened: { route: string; args: Record<string, unknown> }[] = [];
  const http = {
    open(route: AppRoute, args: Record<string, unknown>): Promise<Response> {
      opened.push({ route: `${route.method} ${route.path}`, args });
      const next = answers.shift();
      const a = typeof next === 'function' ? next() : next;
      if (!a) return Promise.reject(new Error('no more answers'));
      return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
    },
    call(route: AppRoute, args: unknown): Promise<unknown> {
      calls.push({ route: `${route.method} ${route.path}`, args });
      const next = answers.shift();
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  } as unknown as OracleHttp;
  return { http, opened };
}

const sse = (stream: ReadableStream<Uint8Array> | null, headers: Record<string, string> = {}) =>
  new Response(stream, { headers: { 'content-type': 'text/event-stream', ...headers } });

async function drain(gen: AsyncGenerator<{ id: number | undefined }[]>) {
  const ids: (number | undefined)[] = [];
  try {
    for await (const batch of gen) ids.push(...batch.map((e) => e.id));
    return { ids, error: undefined };
  } catch (error) {
    return { ids, error };
  }
}

const fast = { baseMs: 1, maxMs: 2, jitter: 0 };

describe('ChatTransport.send', () => {
  it('opens the turn with stream accept and gives its ids and body', async () => {
    const { http, opened } = httpWith([sse(body(), { 'x-request-id': 'req_1', 'x-run-id': 'run_1' })]);
    const signal = new AbortController().signal;
    const turn = await new ChatTransport(http, 's1').send({ message: 'hi', stream: true }, signal);
    expect(turn.requestId).toBe('req_1');
    expect(turn.runId).toBe('run_1');
    expect(turn.body).toBeInstanceOf(ReadableStream);
    expect(opened).toEqual([
      {
        route: 'POST /messages/:sessionId',
        args: {
          params: { sessionId: 's1' },
          body: { message: 'hi', stream: true },
          signal,
          headers: { accept: 'text/event-stream' },
        },
      },
    ]);
  });

  it('no run id header: runId undefined; no request id or no body: an error that says which', async () => {
    const t = (r: Response) =>
      new ChatTransport(httpWith([r]).http, 's1').send({ message: 'hi' }, new AbortController().signal);
    expect((await t(sse(body(), { 'x-request-id': 'req_1' }))).runId).toBeUndefined();
    await expect(t(sse(body()))).rejects.toThrow('Did not receive a request ID');
    await expect(t(sse(null, { 'x-request-id': 'req_1' }))).rejects.toThrow(
      'The oracle answered without a stream',
    );
  });
});

describe('ChatTransport.runInFlight and abort', () => {
  it('a queued, running or recovering run is in flight; an ended one or an error is not', async () => {
    const run = (status: string) => ({ run: { runId: 'run_1', requestId: 'req_1', status } });
    for (const status of ['queued', 'running', 'recovering'])
      expect(
        await new ChatTransport(httpWith([run(status) as never]).http, 's1').runInFlight(),
      ).toMatchObject({ status });
    for (const status of ['finished', 'aborted', 'failed'])
      expect(
        await new ChatTransport(httpWith([run(status) as never]).http, 's1').runInFlight(),
      ).toBeUndefined();
    expect(await new ChatTransport(httpWith([new Error('404')]).http, 's1').runInFlight()).toBeUndefined();
  });

  it('abort posts the session id to /messages/abort', async () => {
    const calls: unknown[] = [];
    await new ChatTransport(httpWith([{} as never], calls).http, 's1').abort();
    expect(calls).toEqual([{ route: 'POST /messages/abort', args: { body: { sessionId: 's1' } } }]);
  });
});

describe('ChatTransport.follow', () => {
  it('a dropped stream is re-joined after the last id seen; reconnecting is reported around it', async () => {
    const { http, opened } = httpWith([sse(body(frame(3, 'c'), frame(4, 'd')))]);
    const reconnecting = vi.fn();
    const t = new ChatTransport(http, 's1', () => fast);
    const gen = t.follow('run_1', body(frame(1, 'a'), frame(2, 'b')), 0, new AbortController().signal, {
      onReconnecting: reconnecting,
    });
    const ids: number[] = [];
    for await (const batch of gen) {
      ids.push(...batch.map((e) => e.id as number));
      if (ids.includes(4)) break;
    }
    expect(ids).toEqual([1, 2, 3, 4]);
    expect(opened[0]).toMatchObject({
      route: 'GET /runs/:runId',
      args: { params: { runId: 'run_1' }, query: { after: 2 }, headers: { accept: 'text/event-stream' } },
    });
    expect(reconnecting.mock.calls).toEqual([[true], [false]]);
  });

  it('a stream whose read fails (the network dropped it mid-answer) is re-joined the same way', async () => {
    const { http, opened } = httpWith([sse(body(frame(2, 'b'), frame(3, 'c')))]);
    const t = new ChatTransport(http, 's1', () => fast);
    const broken = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode(frame(1, 'a')));
      },
      pull(c) {
        c.error(new TypeError('network error'));
      },
    });
    const gen = t.follow('run_1', broken, 0, new AbortController().signal, {
      onReconnecting: () => undefined,
    });
    const ids: number[] = [];
    for await (const batch of gen) {
      ids.push(...batch.map((e) => e.id as number));
      if (ids.includes(3)) break;
    }
    expect(ids).toEqual([1, 2, 3]);
    expect(opened[0]).toMatchObject({ args: { query: { after: 1 } } });
  });

  it('re-joins that bring nothing new count up to `attempts`, then RunDisconnectedError', async () => {
    const { http, opened } = httpWith([sse(body()), sse(body(frame(1, 'old'))), sse(body())]);
    const reconnecting = vi.fn();
    const t = new ChatTransport(http, 's1', () => ({ ...fast, attempts: 3 }));
    const r = await drain(
      t.follow('run_1', body(frame(1, 'a')), 0, new AbortController().signal, {
        onReconnecting: reconnecting,
      }),
    );
    expect(r.error).toBeInstanceOf(RunDisconnectedError);
    expect(opened).toHaveLength(3);
    expect(opened.map((o) => (o.args['query'] as { after: number }).after)).toEqual([1, 1, 1]);
    expect(reconnecting.mock.calls.at(-1)).toEqual([false]);
  });

  it('a re-join that brings something new starts the count again', async () => {
    // attempts 2: empty, new (count back to 0), empty, empty → 4 re-joins before giving up.
    const { http, opened } = httpWith([sse(body()), sse(body(frame(2, 'b'))), sse(body()), sse(body())]);
    const t = new ChatTransport(http, 's1', () => ({ ...fast, attempts: 2 }));
    const r = await drain(
      t.follow('run_1', body(frame(1, 'a')), 0, new AbortController().signal, { onReconnecting: vi.fn() }),
    );
    expect(r.ids).toEqual([1, 2]);
    expect(r.error).toBeInstanceOf(RunDisconnectedError);
    expect(opened).toHaveLength(4);
  });

  it('failed re-joins (errors, no body) count as attempts; a 404 ends at once with the cause', async () => {
    const errors = httpWith([new Error('network'), sse(null), new Error('network')]);
    const t = new ChatTransport(errors.http, 's1', () => ({ ...fast, attempts: 3 }));
    const r = await drain(
      t.follow('run_1', body(), 0, new AbortController().signal, { onReconnecting: vi.fn() }),
    );
    expect(r.error).toBeInstanceOf(RunDisconnectedError);
    expect(errors.opened).toHaveLength(3);

    const gone = new OracleRequestError('gone', { status: 404, code: 'run_not_found' });
    const t404 = new ChatTransport(httpWith([gone]).http, 's1', () => fast);
    const r404 = await drain(
      t404.follow('run_1', body(), 0, new AbortController().signal, { onReconnecting: vi.fn() }),
    );
    expect(r404.error).toBeInstanceOf(RunDisconnectedError);
    expect((r404.error as Error).cause).toBe(gone);
  });

  it('no run id: a drop cannot be re-joined; the default is 5 attempts', async () => {
    const none = httpWith([]);
    const r = await drain(
      new ChatTransport(none.http, 's1').follow(
        undefined,
        body(frame(1, 'a')),
        0,
        new AbortController().signal,
        { onReconnecting: vi.fn() },
      ),
    );
    expect(r.error).toBeInstanceOf(RunDisconnectedError);
    expect(none.opened).toHaveLength(0);

    const empties = httpWith(Array.from({ length: 10 }, () => () => sse(body())));
    const t = new ChatTransport(empties.http, 's1', () => fast);
    await drain(t.follow('run_1', body(), 0, new AbortController().signal, { onReconnecting: vi.fn() }));
    expect(empties.opened).toHaveLength(5);
  });

  it('aborting ends quietly, without a re-join', async () => {
    const ac = new AbortController();
    const { http, opened } = httpWith([() => (ac.abort(), new DOMException('aborted', 'AbortError'))]);
    const t = new ChatTransport(http, 's1', () => fast);
    const r = await drain(t.follow('run_1', body(frame(1, 'a')), 0, ac.signal, { onReconnecting: vi.fn() }));
    expect(r).toEqual({ ids: [1], error: undefined });
    expect(opened).toHaveLength(1);
    const ac2 = new AbortController();
    ac2.abort();
    const r2 = await drain(
      t.follow('run_1', body(frame(1, 'a')), 0, ac2.signal, { onReconnecting: vi.fn() }),
    );
    expect(r2.error).toBeUndefined();
  });
});

describe('RunDisconnectedError and the default re-join waits', () => {
  it('says what happened, by name and text, with the cause when there is one', () => {
    const plain = new RunDisconnectedError();
    expect(plain.name).toBe('RunDisconnectedError');
    expect(plain.message).toBe('The answer stream was lost and could not be re-joined');
    expect(plain.cause).toBeUndefined();
    expect('cause' in plain).toBe(false);
    const cause = new Error('404');
    expect(new RunDisconnectedError(cause).cause).toBe(cause);
  });

  it('the first re-join at once, then waits of 250 ms doubling (±20 %) between failed ones', async () => {
    const at: number[] = [];
    const failing = () => (at.push(Date.now()), new Error('network'));
    const { http } = httpWith([failing, failing, () => (at.push(Date.now()), sse(body(frame(1, 'a'))))]);
    const started = Date.now();
    const t = new ChatTransport(http, 's1', () => ({ attempts: 5 }));
    const ac = new AbortController();
    const ids: (number | undefined)[] = [];
    for await (const batch of t.follow('run_1', body(), 0, ac.signal, { onReconnecting: vi.fn() })) {
      ids.push(...batch.map((e) => e.id));
      ac.abort();
    }
    expect(ids).toEqual([1]);
    expect(at[0]! - started).toBeLessThan(150);
    const [first, second] = [at[1]! - at[0]!, at[2]! - at[1]!];
    expect(first).toBeGreaterThanOrEqual(195);
    expect(first).toBeLessThan(420);
    expect(second).toBeGreaterThanOrEqual(395);
    expect(second).toBeLessThan(780);
  });
});
