import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { USSD_UNAVAILABLE_REPLY } from '../../../contracts/ussd.js';
import { migrateToLatest, openDb } from '../../../server/db/index.js';
import { openRedis } from '../../../server/server.js';
import { startTestApp } from '../../helpers/app.js';
import { createThrowawayDatabase, openTestDb, TEST_DATABASE_URL } from '../../helpers/db.js';
import { deleteKeys, openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import { ussdDialog } from '../../helpers/ussd-dialog.js';

// Spec section 7 A, "server or database error": the request gets the unavailable reply, /health reports
// the database, nothing crashes, and service comes back by itself when the dependency returns. The
// dependencies are the real PostgreSQL and Redis, reached through a loopback TCP proxy the test cuts: these
// tests run in the production column (DATABASE_URL, REDIS_URL set, as in CI).

/** Retries `attempt` until it returns true, for up to `ms`. */
async function eventually(attempt: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await attempt())) {
    if (Date.now() > deadline) throw new Error(`not recovered within ${ms} ms`);
    await sleep(100);
  }
}

describe.runIf(TEST_DATABASE_URL)('a PostgreSQL outage', () => {
  it('answers the unavailable reply and /health 503 while it lasts, and recovers without a restart', async () => {
    await using database = await createThrowawayDatabase('ussd_outage');
    const url = database.url ?? '';
    const upstream = new URL(url);
    await using proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const db = await openDb({ kind: 'postgres', url: proxied.toString(), poolSize: 4 });
    try {
      await migrateToLatest(db);
      await using t = await startTestApp({
        db: Object.assign(db, { [Symbol.asyncDispose]: () => db.close() }),
        env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0' },
      });
      const before = ussdDialog(t.request);
      expect(await before.dial()).toMatch(/^CON /);
      expect((await t.request.get('/health').expect(200)).body.database).toBe('connected');

      await proxy.cut();
      // A new session needs the database (the phone's account): unavailable, exactly, as HTTP 200 text.
      const during = await t.request
        .post('/api/ussd')
        .send({ sessionId: 'outage-1', serviceCode: '*384*123#', phoneNumber: '+254700000001', text: '' })
        .expect(200);
      expect(during.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(during.text).toBe(USSD_UNAVAILABLE_REPLY);
      const health = await t.request.get('/health').expect(503);
      expect(health.body).toMatchObject({ status: 'error', database: 'disconnected' });
      // Menu navigation that needs no database still works for a session already running.
      expect(await before.send('1')).toMatch(/^CON /);

      await proxy.restore();
      await eventually(async () => (await ussdDialog(t.request).dial()).startsWith('CON '));
      expect((await t.request.get('/health').expect(200)).body.database).toBe('connected');
      expect(await ussdDialog(t.request).dial()).toMatch(/^CON /);
    } finally {
      await db.close();
    }
  });
});

describe.runIf(TEST_REDIS_URL)('a Redis outage (sessions and rate-limit counters in Redis)', () => {
  it('answers the unavailable reply while it lasts and recovers by itself, even when Redis was down at start', async () => {
    const redisUrl = TEST_REDIS_URL ?? '';
    const upstream = new URL(redisUrl);
    await using proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 6379) });
    const proxied = new URL(redisUrl);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const prefix = testRedisPrefix('test-outage');
    await proxy.cut();
    // The server's own fail-fast client settings: commands fail at once while Redis is away.
    const redis = openRedis(proxied.toString());
    redis.on('error', () => undefined);
    await using db = await openTestDb();
    await using t = await startTestApp({ db, redis, redisPrefix: prefix, env: { ENABLED_PARTS: 'ussd' } });
    try {
      const down = await t.request
        .post('/api/ussd')
        .send({ sessionId: 'redis-down', serviceCode: '*384*123#', phoneNumber: '+254700000002', text: '' })
        .expect(200);
      expect(down.text).toBe(USSD_UNAVAILABLE_REPLY);
      const operator = await t.request.get('/api/ussd/sessions').expect(503);
      expect(operator.body.code).toBe('unavailable');

      await proxy.restore();
      await eventually(async () => (await ussdDialog(t.request).dial()).startsWith('CON '));
      const d = ussdDialog(t.request);
      await d.dial();
      expect(await d.send('1')).toMatch(/^CON /);
      expect((await t.request.get('/api/ussd/sessions').expect(200)).body.activeSessions).toContain(
        d.sessionId,
      );
      const rl = await t.request.post('/api/ussd').send({ bad: 1 }).expect(200);
      expect(rl.headers['ratelimit']).toMatch(/^limit=100, remaining=\d+/);

      await proxy.cut();
      expect(await d.send('0')).toBe(USSD_UNAVAILABLE_REPLY);
      await proxy.restore();
      await eventually(async () => (await ussdDialog(t.request).dial()).startsWith('CON '));
    } finally {
      redis.disconnect();
      const cleanup = await openTestRedis();
      await deleteKeys(cleanup, prefix);
      cleanup.disconnect();
    }
  });
});
