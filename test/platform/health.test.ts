import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openRedis } from '../../server/server.js';
import { startTestApp } from '../helpers/app.js';
import { openTestDb } from '../helpers/db.js';
import { haveRedisServer, startPrivateRedis } from '../helpers/private-redis.js';

// Issue 16 item 4, regression of "Redis down: /health said 200 ok while every USSD request failed". A Redis
// server of the test's own is killed and started again (the machine's Redis is never touched).

const REDIS_SERVER = await haveRedisServer();

describe('honest /health', () => {
  it('reports the database and answers uptime in whole seconds (spec A5 fields unchanged)', async () => {
    await using t = await startTestApp({ env: { ENABLED_PARTS: 'ussd', REDIS_URL: '' } });
    const res = await t.request.get('/health').expect(200);
    expect(res.body).toMatchObject({ status: 'ok', database: 'connected', environment: 'test' });
    expect(Number.isInteger(res.body.uptime)).toBe(true);
    // No Redis configured: no redis field.
    expect(res.body).not.toHaveProperty('redis');
  });

  it.runIf(REDIS_SERVER)(
    'redis down: /health no longer says 200 ok; it says 503 with redis disconnected, and 200 once Redis is back',
    async () => {
      await using redisServer = await startPrivateRedis();
      const redis = openRedis(redisServer.url);
      try {
        await using db = await openTestDb();
        await using t = await startTestApp({
          db,
          redis,
          env: { ENABLED_PARTS: 'ussd', REDIS_URL: redisServer.url },
        });
        expect((await t.request.get('/health').expect(200)).body).toMatchObject({
          status: 'ok',
          database: 'connected',
          redis: 'connected',
        });
        await redisServer.kill();
        const t0 = Date.now();
        const down = await t.request.get('/health').expect(503);
        expect(Date.now() - t0).toBeLessThan(2500);
        expect(down.body).toMatchObject({ status: 'error', database: 'connected', redis: 'disconnected' });
        await redisServer.start();
        const deadline = Date.now() + 5000;
        while ((await t.request.get('/health')).status !== 200 && Date.now() < deadline) await sleep(50);
        expect((await t.request.get('/health').expect(200)).body.redis).toBe('connected');
      } finally {
        redis.disconnect();
      }
    },
  );
});
