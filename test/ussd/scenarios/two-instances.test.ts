import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { deleteKeys, openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';

// Two gateway instances behind a load balancer: one Redis, one database, one PIN key. The requests of one
// session alternate between them; the session must go on as if there were one server. Needs Redis itself:
// runs in the production column (REDIS_URL set, as in CI).
const prefix = testRedisPrefix('test-two');
const env = {
  ENABLED_PARTS: 'ussd',
  PIN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  USSD_RATE_LIMIT_PER_MINUTE: '0',
};
let redis: Redis;
let db: TestDb;
let a: TestApp;
let b: TestApp;

/** One session whose n-th request goes to instance a (even n) or b (odd n), like a round-robin balancer. */
function roundRobinSession() {
  const sessionId = `ATUid_${randomBytes(8).toString('hex')}`;
  const phoneNumber = `+2547${String(Date.now()).slice(-8)}`;
  const inputs: string[] = [];
  let n = 0;
  const post = async (instance: TestApp): Promise<string> => {
    const text = inputs.join('*');
    const res = await instance.request
      .post('/api/ussd')
      .send({ sessionId, serviceCode: '*384*123#', phoneNumber, text })
      .expect(200);
    return res.text;
  };
  return {
    sessionId,
    next: (input?: string): Promise<string> => {
      if (input !== undefined) inputs.push(input);
      return post(n++ % 2 === 0 ? a : b);
    },
    /** The current text again, to the other instance than the last request went to. */
    retryOnOther: (): Promise<string> => post(n % 2 === 0 ? a : b),
  };
}

describe.runIf(TEST_REDIS_URL)('two instances sharing Redis sessions', () => {
  beforeAll(async () => {
    [redis, db] = await Promise.all([openTestRedis(), openTestDb()]);
    [a, b] = await Promise.all([
      startTestApp({ env, redis, redisPrefix: prefix, db }),
      startTestApp({ env, redis, redisPrefix: prefix, db }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await deleteKeys(redis, prefix);
    redis.disconnect();
    await db.close();
  });

  it('carry one session through account creation and login, alternating every request', async () => {
    const s = roundRobinSession();
    expect(await s.next()).toMatch(/^CON Welcome/);
    expect(await s.next('2')).toMatch(/^CON Account/);
    await s.next('2');
    await s.next('Two Instances');
    await s.next('00');
    await s.next('48213');
    const created = await s.next('48213');
    const customerId = /C[0-9A-Z]{8}/.exec(created)?.[0];
    expect(customerId).toBeDefined();
    expect(await s.next('1')).toContain(`1. Use account ${customerId}`);
    expect(await s.next('1')).toMatch(/PIN/);
    const home = await s.next('48213');
    expect(home).toMatch(/^CON /);

    for (const instance of [a, b]) {
      const debug = await instance.request.get(`/api/ussd/debug/${s.sessionId}`).expect(200);
      expect(debug.body.debugInfo.state).toBe('preMenu');
      expect(debug.body.debugInfo.context.isAuthenticated).toBe(true);
      expect(debug.body.debugInfo.context.message).toBe(home.slice(4));
    }
    expect(
      await db.kysely
        .selectFrom('customers')
        .where('full_name', '=', 'Two Instances')
        .select('customer_id')
        .execute(),
    ).toHaveLength(1);
  });

  it('answers a retry sent to the other instance with the same reply, without running it again', async () => {
    const s = roundRobinSession();
    await s.next();
    await s.next('2');
    await s.next('2');
    await s.next('Retry Elsewhere');
    await s.next('00');
    await s.next('48213');
    const created = await s.next('48213');
    expect(await s.retryOnOther()).toBe(created);
    const rows = await db.kysely
      .selectFrom('customers')
      .where('full_name', '=', 'Retry Elsewhere')
      .select('customer_id')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('an END on one instance ends the session on both', async () => {
    const s = roundRobinSession();
    await s.next();
    await s.next('1');
    expect(await s.next('*')).toMatch(/^END /);
    await a.request.get(`/api/ussd/debug/${s.sessionId}`).expect(404);
    await b.request.get(`/api/ussd/debug/${s.sessionId}`).expect(404);
  });

  it('both instances list the same active sessions', async () => {
    const s = roundRobinSession();
    await s.next();
    const [la, lb] = await Promise.all([
      a.request.get('/api/ussd/sessions'),
      b.request.get('/api/ussd/sessions'),
    ]);
    expect(la.body.activeSessions).toContain(s.sessionId);
    expect(lb.body).toEqual(la.body);
  });

  it('keeps sessions encrypted in Redis (they carry the typed text, PINs included)', async () => {
    const s = roundRobinSession();
    await s.next();
    await s.next('2');
    await s.next('2');
    await s.next('Sealed Person');
    await s.next('00');
    await s.next('97531');
    const stored = await redis.get(`${prefix}ussd:session:${s.sessionId}`);
    expect(stored).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9+/]+=*$/);
    expect(stored).not.toContain('97531');
    expect(stored).not.toContain('Sealed Person');
  });
});
