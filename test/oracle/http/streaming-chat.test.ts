import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SSE_EVENT_NAMES } from '../../../contracts/events.js';
import { newUser, oracleApi, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';
import { answerText, parseInPieces } from '../../helpers/oracle/sse.js';

let app: OracleApp;
let user: OracleUser;
let api: ReturnType<typeof oracleApi>;

beforeAll(async () => {
  app = await startOracleApp({ env: { SCRIPTED_MODEL_DELAY_MS: '2' } });
  user = await newUser(app.oracleDid);
  api = oracleApi(app.url, user);
});
afterAll(() => app.close());

describe('streaming chat (POST /messages/:sessionId with stream: true)', () => {
  it('answers text/event-stream with the run headers; run first, growing integer ids, done last', async () => {
    const session = await api.createSession();
    const { response, events } = await api.stream(session.sessionId, { message: 'hello' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toMatch(/no-cache/);
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const requestId = response.headers.get('x-request-id');
    const runId = response.headers.get('x-run-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(runId).toMatch(/^run_/);

    expect(events[0]).toMatchObject({
      event: 'run',
      data: { runId, requestId, sessionId: session.sessionId },
    });
    expect(events.at(-1)).toEqual({ id: expect.any(Number), event: 'done', data: { status: 'finished' } });
    const ids = events.map((e) => e.id ?? NaN);
    expect(ids.every(Number.isInteger)).toBe(true);
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] as number);
    for (const e of events) expect(SSE_EVENT_NAMES).toContain(e.event);
    expect(answerText(events)).toBe(
      'Hello, I am Guide oracle. You said: "hello". Ask me to write a long story, to think step by step, to show a component by its name, or to use one of your tools by its name.',
    );
  });

  it('streams reasoning apart from the answer and keeps both in history', async () => {
    const session = await api.createSession();
    const { events } = await api.stream(session.sessionId, { message: 'think step by step please' });
    const reasoning = events
      .filter((e) => e.event === 'reasoning')
      .map((e) => e.data as { reasoning: string; isComplete: boolean });
    expect(reasoning.length).toBeGreaterThan(2);
    expect(reasoning.at(-1)).toMatchObject({ reasoning: '', isComplete: true });
    expect(reasoning.map((r) => r.reasoning).join('')).toContain('I will answer in three short steps.');
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages).toHaveLength(2);
    expect(history.body.messages[1]).toMatchObject({
      type: 'ai',
      reasoning: expect.stringContaining('three short steps'),
    });
    expect(history.body.messages[1].content).not.toContain('three short steps');
  });

  it('without stream: one JSON answer with the AI message, whose id is the request id', async () => {
    const session = await api.createSession();
    const r = await api.call('POST', `/messages/${session.sessionId}`, { message: 'hi' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      message: { type: 'ai', content: expect.stringContaining('You said: "hi"'), id: expect.any(String) },
      sessionId: session.sessionId,
    });
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai']);
    expect(history.body.messages[1].id).toBe(r.body.message.id);
    // The answer is the concatenated text of the turn's `message` events, nothing else.
    expect(r.body.message.content).toBe(history.body.messages[1].content);
  });

  it('reads events split across network chunks (a long answer in hundreds of frames)', async () => {
    const session = await api.createSession();
    const { events, raw } = await api.stream(session.sessionId, { message: 'write a long story' });
    const text = answerText(events);
    expect(text.split(/\s+/).length).toBeGreaterThan(350);
    // The same bytes cut anywhere (inside a field name, between \n and \n) give the same events.
    expect(parseInPieces(raw, [1, 7, 3, 13, 2, 64])).toEqual(events);
    expect(parseInPieces(raw.replaceAll('\n', '\r\n'), [5, 1, 9])).toEqual(events);
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages[1].content).toBe(text);
  });

  it('sends a heartbeat comment while a turn is quiet', async () => {
    await using quiet = await startOracleApp({
      env: { ORACLE_SSE_HEARTBEAT_SECONDS: '1', SCRIPTED_MODEL_DELAY_MS: '400' },
    });
    const u = await newUser(quiet.oracleDid);
    const q = oracleApi(quiet.url, u);
    const session = await q.createSession();
    const started = Date.now();
    const { comments, events } = await q.stream(
      session.sessionId,
      { message: 'hello' },
      undefined,
      (c) => c === 'heartbeat',
    );
    expect(comments).toEqual(['heartbeat']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(events.some((e) => e.event === 'done')).toBe(false);
  });
});
