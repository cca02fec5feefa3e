import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { scriptedUssdPart } from '../helpers/scripted-test-engine.js';
import { ussdBody } from '../helpers/ussd-dialog.js';

// The debug endpoints are for operators only (spec section 4; reference defect #12 exposed them everywhere).
const production = {
  ENABLED_PARTS: 'ussd',
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://unused.invalid/db',
  PIN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  PIN_SCRYPT_LOG2N: '14',
};
const TOKEN = 'operator-token-for-tests-0123456789';

async function withSession(t: TestApp): Promise<string> {
  const body = ussdBody();
  await t.request.post('/api/ussd').send(body).expect(200);
  return body.sessionId;
}

describe('operator endpoints in production with OPERATOR_TOKEN set', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      parts: { ussd: scriptedUssdPart() },
      db: 'none',
      env: { ...production, OPERATOR_TOKEN: TOKEN },
    });
  });
  afterAll(() => t.close());

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer ${TOKEN}x`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 10)}`],
    ['the token without the Bearer scheme', TOKEN],
    ['an empty bearer', 'Bearer '],
  ])('answers 401 unauthorized to %s', async (_name, authorization) => {
    const id = await withSession(t);
    for (const path of [`/api/ussd/debug/${id}`, '/api/ussd/sessions']) {
      const req = t.request.get(path);
      if (authorization !== undefined) req.set('authorization', authorization);
      const res = await req.expect(401);
      expect(res.body).toEqual({
        code: 'unauthorized',
        message: 'Operator endpoints need Authorization: Bearer <OPERATOR_TOKEN>.',
        requestId: res.headers['x-request-id'],
      });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('answers with the right token', async () => {
    const id = await withSession(t);
    const auth = `Bearer ${TOKEN}`;
    const debug = await t.request.get(`/api/ussd/debug/${id}`).set('authorization', auth).expect(200);
    expect(debug.body.debugInfo.status).toBe('active');
    const list = await t.request.get('/api/ussd/sessions').set('authorization', auth).expect(200);
    expect(list.body.activeSessions).toContain(id);
    await t.request.get('/api/ussd/debug/unknown').set('authorization', auth).expect(404);
  });

  it('checks the token before validating the path: no 400 for strangers', async () => {
    await t.request.get(`/api/ussd/debug/${'x'.repeat(101)}`).expect(401);
  });

  it('keeps the session endpoint open (it is restricted at the network layer)', async () => {
    await t.request.post('/api/ussd').send(ussdBody()).expect(200);
  });
});

describe('operator endpoints in production without OPERATOR_TOKEN', () => {
  it('do not exist: 404 not_found, whatever the header', async () => {
    await using t = await startTestApp({
      parts: { ussd: scriptedUssdPart() },
      db: 'none',
      env: production,
    });
    const id = await withSession(t);
    for (const path of [`/api/ussd/debug/${id}`, '/api/ussd/sessions']) {
      const res = await t.request.get(path).set('authorization', 'Bearer anything').expect(404);
      expect(res.body).toEqual({
        code: 'not_found',
        message: 'No such route.',
        requestId: res.headers['x-request-id'],
      });
    }
  });
});

describe('operator endpoints outside production', () => {
  it('are open for local work', async () => {
    await using t = await startTestApp({
      parts: { ussd: scriptedUssdPart() },
      db: 'none',
      env: { ENABLED_PARTS: 'ussd', NODE_ENV: 'development' },
    });
    const id = await withSession(t);
    await t.request.get(`/api/ussd/debug/${id}`).expect(200);
    await t.request.get('/api/ussd/sessions').expect(200);
  });
});
