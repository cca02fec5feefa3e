import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, oracleApi, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';
import { answerText, type SseEvent } from '../../helpers/oracle/sse.js';

let app: OracleApp;
let user: OracleUser;
let api: ReturnType<typeof oracleApi>;

beforeAll(async () => {
  app = await startOracleApp({ env: { SCRIPTED_MODEL_DELAY_MS: '3' } });
  user = await newUser(app.oracleDid);
  api = oracleApi(app.url, user);
});
afterAll(() => app.close());

const LONG = 'write a long story';

/** Waits until the session's latest run is no longer in flight. */
async function waitForEnd(sessionId: string): Promise<{ status: string; lastEventId: number }> {
  for (let i = 0; i < 400; i++) {
    const r = await api.call('GET', `/sessions/${sessionId}/run`);
    if (!['queued', 'running', 'recovering'].includes(r.body.run.status)) return r.body.run;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('run did not end');
}

describe('abort', () => {
  it('answers the abort first, then ends the stream with done aborted and keeps the partial answer', async () => {
    const session = await api.createSession();
    let abort: Promise<{ status: number; body: unknown }> | undefined;
    const { events } = await api.stream(session.sessionId, { message: LONG }, (_event, all) => {
      if (all.filter((e) => e.event === 'message').length === 20 && !abort) {
        abort = api.call('POST', '/messages/abort', { sessionId: session.sessionId });
      }
    });
    // The published SDK awaits this answer before it drops its connection: it must arrive whole.
    expect(await abort).toMatchObject({ status: 200, body: { success: true } });
    const done = events.at(-1);
    const partial = answerText(events);
    expect(done).toMatchObject({ event: 'done', data: { status: 'aborted', partialText: partial } });
    expect(partial.split(/\s+/).length).toBeLessThan(300);
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages[1]).toMatchObject({ type: 'ai', content: partial, runStatus: 'aborted' });
    expect((await api.call('GET', `/sessions/${session.sessionId}/run`)).body.run).toMatchObject({
      status: 'aborted',
      partialText: partial,
    });
  });

  it('answers success: false when nothing is in flight', async () => {
    const session = await api.createSession();
    expect((await api.call('POST', '/messages/abort', { sessionId: session.sessionId })).body).toEqual({
      success: false,
    });
  });
});

describe('one stream per session', () => {
  it('a second message ends the first stream at once (aborted, partial kept), in order in history', async () => {
    const session = await api.createSession();
    let second: Promise<{ events: SseEvent[] }> | undefined;
    const first = await api.stream(session.sessionId, { message: LONG }, (_event, all) => {
      if (all.filter((e) => e.event === 'message').length === 10 && !second) {
        second = api.stream(session.sessionId, { message: 'hello again' });
      }
    });
    expect(first.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'aborted' } });
    const secondEvents = (await second!).events;
    expect(secondEvents.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(
      history.body.messages.map((m: { type: string; runStatus?: string }) => [m.type, m.runStatus]),
    ).toEqual([
      ['human', undefined],
      ['ai', 'aborted'],
      ['human', undefined],
      ['ai', undefined],
    ]);
    expect(history.body.messages[1].content).toBe(answerText(first.events));
  });
});

// Each test has a session of its own: their streams run side by side.
describe.concurrent('re-join', () => {
  it('a dropped client does not lose the turn: GET /runs/:id?after=N gives exactly the rest, then live', async () => {
    const session = await api.createSession();
    const first = await api.stream(session.sessionId, { message: LONG }, (_e, all) => all.length >= 30);
    expect(first.stoppedEarly).toBe(true);
    const runId = first.response.headers.get('x-run-id') as string;
    const lastId = first.events.at(-1)?.id as number;
    const rest = await api.rejoin(runId, lastId);
    expect(rest.response.status).toBe(200);
    expect(rest.response.headers.get('x-run-id')).toBe(runId);
    const all = [...first.events, ...rest.events];
    const ids = all.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    expect(all.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(answerText(all)).toBe(history.body.messages[1].content);
  });

  it('Last-Event-ID on the same path works the standard way, and a finished run replays from the start', async () => {
    const session = await api.createSession();
    const full = await api.stream(session.sessionId, { message: 'hello' });
    const runId = full.response.headers.get('x-run-id') as string;
    const viaHeader = await api.rejoin(runId, 0, { 'last-event-id': '5' });
    // ?after=0 is what the URL says; the header is the browser's reconnect: a given `after` wins.
    expect(viaHeader.events).toEqual(full.events);
    const response = await fetch(`${app.url}/runs/${runId}`, {
      headers: { ...user.headers, 'last-event-id': '5' },
    });
    const text = await response.text();
    expect(text).not.toContain('id: 5\n');
    expect(text).toContain('id: 6\n');
    const nothingNew = await api.rejoin(runId, full.events.at(-1)?.id as number);
    expect(nothingNew.response.status).toBe(200);
    expect(nothingNew.events).toEqual([]);
  });

  it('GET /sessions/:id/run reports the run in flight, then how it ended; another user gets 404', async () => {
    const session = await api.createSession();
    let seen: unknown;
    await api.stream(session.sessionId, { message: LONG }, (e) => {
      if (e.event === 'message' && !seen) {
        seen = true;
        void api.call('GET', `/sessions/${session.sessionId}/run`).then((r) => (seen = r.body.run.status));
      }
    });
    expect(seen).toBe('running');
    expect(await waitForEnd(session.sessionId)).toMatchObject({ status: 'finished' });
    const other = oracleApi(app.url, await newUser(app.oracleDid));
    expect((await other.call('GET', `/sessions/${session.sessionId}/run`)).status).toBe(404);
    const runId = (await api.call('GET', `/sessions/${session.sessionId}/run`)).body.run.runId as string;
    expect((await other.rejoin(runId, 0)).response.status).toBe(404);
    expect((await api.rejoin('run_unknown', 0)).response.status).toBe(404);
  });
});
