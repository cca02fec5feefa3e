import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USSD_UNAVAILABLE_REPLY } from '../../../contracts/ussd.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import {
  createScriptedTestEngine,
  scriptedUssdPart,
  type ScriptedTestEngine,
} from '../../helpers/scripted-test-engine.js';
import { ussdBody } from '../../helpers/ussd-dialog.js';

// The gateway around the engine (router, flow, session store), with the scripted test engine.
let t: TestApp;
let engine: ScriptedTestEngine;
beforeAll(async () => {
  engine = createScriptedTestEngine();
  t = await startTestApp({
    db: 'none',
    parts: { ussd: scriptedUssdPart(engine) },
    env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0' },
  });
});
afterAll(() => t.close());

const post = (body: Record<string, unknown>) => t.request.post('/api/ussd').send(body);

describe('POST /api/ussd', () => {
  it('answers the dial with HTTP 200 text/plain CON', async () => {
    const res = await post(ussdBody()).expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('CON Test menu\n1. Echo\n2. Account\n*. Exit');
  });

  it('accepts form-encoded bodies as Africa’s Talking posts them, networkCode included', async () => {
    const body = ussdBody();
    const res = await t.request
      .post('/api/ussd')
      .type('form')
      .send({ ...body, networkCode: '63902' })
      .expect(200);
    expect(res.text).toBe('CON Test menu\n1. Echo\n2. Account\n*. Exit');
    const next = await t.request
      .post('/api/ussd')
      .type('form')
      .send({ ...body, text: '1', networkCode: '63902' })
      .expect(200);
    expect(next.text).toBe('CON You typed 1');
  });

  it.each([
    ['Application/JSON; charset=UTF-8', (b: Record<string, string>) => JSON.stringify(b)],
    [' application/json ;charset=utf-8', (b: Record<string, string>) => JSON.stringify(b)],
    [
      'application/x-www-form-urlencoded; charset=utf-8',
      (b: Record<string, string>) => new URLSearchParams(b).toString(),
    ],
    ['APPLICATION/X-WWW-FORM-URLENCODED', (b: Record<string, string>) => new URLSearchParams(b).toString()],
  ])(
    'parses a body sent as %j (media types are case-insensitive, parameters aside)',
    async (type, encode) => {
      const res = await t.request
        .post('/api/ussd')
        .set('content-type', type)
        .send(encode(ussdBody()))
        .expect(200);
      expect(res.text).toBe('CON Test menu\n1. Echo\n2. Account\n*. Exit');
    },
  );

  it.each(['application/json-patch+json', 'application/jsonx', 'application/x-www-form-urlencoded2'])(
    'does not parse a body sent as %j (another media type): invalid input',
    async (type) => {
      const res = await t.request
        .post('/api/ussd')
        .set('content-type', type)
        .send(JSON.stringify(ussdBody()))
        .expect(200);
      expect(res.text).toBe('END Invalid input. Please try again.');
    },
  );

  it('keeps the session between requests and shows it to operators (spec A3)', async () => {
    const body = ussdBody();
    await post(body).expect(200);
    const debug = await t.request.get(`/api/ussd/debug/${body.sessionId}`).expect(200);
    expect(debug.body).toEqual({
      sessionId: body.sessionId,
      debugInfo: {
        state: 'preMenu',
        context: {
          sessionId: body.sessionId,
          phoneNumber: body.phoneNumber,
          message: 'Test menu\n1. Echo\n2. Account\n*. Exit',
          isAuthenticated: false,
        },
        status: 'active',
      },
      activeSessions: expect.arrayContaining([body.sessionId]),
    });
    await post({ ...body, text: '7' }).expect(200, 'CON You typed 7');
    const after = await t.request.get(`/api/ussd/debug/${body.sessionId}`).expect(200);
    expect(after.body.debugInfo.state).toBe('echo');
    expect(after.body.debugInfo.context.message).toBe('You typed 7');
  });

  it('lists active sessions (spec A4)', async () => {
    const a = ussdBody();
    const b = ussdBody();
    await post(a).expect(200);
    await post(b).expect(200);
    const res = await t.request.get('/api/ussd/sessions').expect(200);
    expect(res.body.activeSessions).toEqual(expect.arrayContaining([a.sessionId, b.sessionId]));
    expect(res.body.count).toBe(res.body.activeSessions.length);
    expect([...res.body.activeSessions].sort()).toEqual(res.body.activeSessions);
  });

  it('an END reply removes the session at once; the debug route then answers session_not_found', async () => {
    const body = ussdBody();
    await post(body).expect(200);
    await post({ ...body, text: '*' }).expect(200, 'END Goodbye');
    const res = await t.request.get(`/api/ussd/debug/${body.sessionId}`).expect(404);
    expect(res.body).toEqual({
      code: 'session_not_found',
      message: 'Session not found or expired. Dial again.',
      requestId: res.headers['x-request-id'],
    });
    const list = await t.request.get('/api/ussd/sessions').expect(200);
    expect(list.body.activeSessions).not.toContain(body.sessionId);
  });

  it('a session that never started is session_not_found', async () => {
    const res = await t.request.get('/api/ussd/debug/never-dialled').expect(404);
    expect(res.body.code).toBe('session_not_found');
  });

  it('a malformed debug session id is a 400 bad_request JSON error', async () => {
    const res = await t.request.get(`/api/ussd/debug/${'x'.repeat(101)}`).expect(400);
    expect(res.body).toEqual({
      code: 'bad_request',
      message: 'Invalid request parameters.',
      requestId: res.headers['x-request-id'],
    });
  });

  it('an engine failure answers the unavailable reply, removes the session, and the server keeps answering', async () => {
    const body = ussdBody();
    await post(body).expect(200);
    const res = await post({ ...body, text: 'boom' }).expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe(USSD_UNAVAILABLE_REPLY);
    await t.request.get(`/api/ussd/debug/${body.sessionId}`).expect(404);
    await post(ussdBody()).expect(200, 'CON Test menu\n1. Echo\n2. Account\n*. Exit');
  });
});

describe('retries (the telecom gateway resends after a timeout)', () => {
  it('a retried final request gets the same END reply, although the session is gone', async () => {
    const body = ussdBody();
    await post(body).expect(200);
    await post({ ...body, text: '3' }).expect(200);
    const before = engine.inputsRun;
    await post({ ...body, text: '3*' }).expect(200, 'END Goodbye');
    await post({ ...body, text: '3*' }).expect(200, 'END Goodbye');
    expect(engine.inputsRun).toBe(before + 1);
    await t.request.get(`/api/ussd/debug/${body.sessionId}`).expect(404);
  });

  it('concurrent duplicates of one request are serialised: the input runs once, every copy gets its reply', async () => {
    const body = ussdBody();
    await post(body).expect(200);
    const before = engine.inputsRun;
    const replies = await Promise.all(Array.from({ length: 5 }, () => post({ ...body, text: 'slow' })));
    expect(replies.map((r) => r.text)).toEqual(Array(5).fill('CON You typed slow'));
    expect(engine.inputsRun).toBe(before + 1);
  });

  it('concurrent duplicates of a dial start one session', async () => {
    const body = ussdBody();
    const before = engine.inputsRun;
    await Promise.all(Array.from({ length: 4 }, () => post(body).expect(200)));
    expect(engine.inputsRun).toBe(before + 1);
  });
});
