import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { scriptedUssdPart } from '../../helpers/scripted-test-engine.js';
import { ussdBody } from '../../helpers/ussd-dialog.js';

// The debug endpoints are for operators only (spec section 4; reference defect #12 exposed them everywhere).
const production = {
  ENABLED_PARTS: 'ussd',
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://unused.invalid/db',
  PIN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  PIN_SCRYPT_LOG2N: '14',
  // Production wants the aggregator authenticated (test/security/ussd-aggregator.test.ts); not these tests' subject.
  USSD_AGGREGATOR_AUTH: 'network',
};
const TOKEN = 'operator-token-for-tests-0123456789';
/** Where a development app keeps the PIN key it generates: not the repository's ./data. */
const devDataDir = path.join(tmpdir(), 'ussd-operator-auth-test');

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

  it('guards /metrics the same way', async () => {
    await t.request.get('/metrics').expect(401);
    await t.request.get('/metrics').set('authorization', `Bearer ${TOKEN}`).expect(200);
  });

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

/** A non-loopback address of this machine, so a test can reach the server as a remote caller would. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;

const OPERATOR_PATHS = (id: string): string[] => [`/api/ussd/debug/${id}`, '/api/ussd/sessions', '/metrics'];

describe.each([
  ['production', production],
  ['development', { ENABLED_PARTS: 'ussd', NODE_ENV: 'development', DATA_DIR: devDataDir }],
  ['test', { ENABLED_PARTS: 'ussd', NODE_ENV: 'test' }],
])('operator surfaces without OPERATOR_TOKEN in %s', (_env, env) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ parts: { ussd: scriptedUssdPart() }, db: 'none', env });
  });
  afterAll(() => t.close());

  it('answer a direct loopback connection', async () => {
    const id = await withSession(t);
    for (const path of OPERATOR_PATHS(id)) await t.request.get(path).expect(200);
  });

  it.each([
    ['X-Forwarded-For', '203.0.113.7'],
    ['Forwarded', 'for=203.0.113.7'],
    ['X-Real-IP', '203.0.113.7'],
  ])(
    'were open outside production: now 404 to a loopback request forwarded by a proxy (%s)',
    async (header, value) => {
      const id = await withSession(t);
      for (const path of OPERATOR_PATHS(id)) {
        const res = await t.request
          .get(path)
          .set(header, value)
          .set('authorization', 'Bearer anything')
          .expect(404);
        expect(res.body).toEqual({
          code: 'not_found',
          message: 'No such route.',
          requestId: res.headers['x-request-id'],
        });
      }
    },
  );

  it.runIf(externalAddress)('answer 404 to a caller on another address', async () => {
    const id = await withSession(t);
    const base = `http://${externalAddress}:${t.server.port}`;
    for (const path of OPERATOR_PATHS(id)) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('not_found');
    }
    // The session endpoint stays open (it is restricted at the network layer).
    const dial = await fetch(`${base}/api/ussd`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ussdBody()),
    });
    expect(dial.status).toBe(200);
  });
});

describe('operator surfaces with OPERATOR_TOKEN outside production', () => {
  it('need the token from loopback too, /metrics included', async () => {
    await using t = await startTestApp({
      parts: { ussd: scriptedUssdPart() },
      db: 'none',
      env: { ENABLED_PARTS: 'ussd', NODE_ENV: 'development', OPERATOR_TOKEN: TOKEN, DATA_DIR: devDataDir },
    });
    const id = await withSession(t);
    for (const path of OPERATOR_PATHS(id)) {
      await t.request.get(path).expect(401);
      await t.request.get(path).set('authorization', `Bearer ${TOKEN}`).expect(200);
    }
  });
});

describe('operator surfaces and the USSD rate limit', () => {
  it('are not counted by it, and the 429 of POST /api/ussd is documented', async () => {
    await using t = await startTestApp({
      parts: { ussd: scriptedUssdPart() },
      db: 'none',
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '3' },
    });
    const id = await withSession(t);
    for (let i = 0; i < 5; i++) {
      await t.request.get(`/api/ussd/debug/${id}`).expect(200);
      await t.request.get('/api/ussd/sessions').expect(200);
      await t.request.get('/metrics').expect(200);
    }
    // One session request was made: two more pass, the fourth is limited.
    await t.request.post('/api/ussd').send(ussdBody()).expect(200);
    await t.request.post('/api/ussd').send(ussdBody()).expect(200);
    await t.request.post('/api/ussd').send(ussdBody()).expect(429);
    await t.request.get('/api/ussd/sessions').expect(200);
    const doc = JSON.parse(await readFile('generated/openapi.json', 'utf8')) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(Object.keys(doc.paths['/api/ussd']?.['post']?.responses ?? {})).toContain('429');
  });
});
