import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp } from '../../helpers/app.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { deleteKeys, openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';
import { ussdDialog } from '../../helpers/ussd-dialog.js';

// Inactivity expiry (spec section 3; reference defect #5 never expired sessions), with a 60-second
// USSD_SESSION_TTL_SECONDS, on both session stores. No test waits for the clock: the in-process store reads
// a faked Date, and in Redis the session key's own TTL is shortened by the time that is meant to pass
// (Redis expires keys by its own clock; what the gateway owes is to set that TTL on every request).
const TTL_MS = 60_000;
const prefix = testRedisPrefix('test-expiry');
let redis: Redis | undefined;
let db: TestDb;
beforeAll(async () => {
  [redis, db] = await Promise.all([TEST_REDIS_URL ? openTestRedis() : undefined, openTestDb()]);
});
afterAll(async () => {
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
  await db.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** How inactivity is made to pass for one session, per store. */
interface Clock {
  elapse(sessionId: string, ms: number): Promise<void>;
}

const memoryClock = (): Clock => {
  vi.useFakeTimers({ toFake: ['Date'] });
  return {
    elapse: (_sessionId, ms) => {
      vi.advanceTimersByTime(ms);
      return Promise.resolve();
    },
  };
};

const redisClock = (client: Redis): Clock => ({
  async elapse(sessionId, ms) {
    const key = `${prefix}ussd:session:${sessionId}`;
    const left = await client.pttl(key);
    if (left > ms) await client.pexpire(key, left - ms);
    else await client.del(key);
  },
});

describe.each([
  ['memory', false],
  ['redis', true],
] as const)('%s sessions', (_kind, inRedis) => {
  it.runIf(!inRedis || TEST_REDIS_URL)(
    'expire after USSD_SESSION_TTL_SECONDS of inactivity; activity restarts the timer; a new dial starts over',
    async () => {
      const clock = inRedis && redis ? redisClock(redis) : memoryClock();
      await using t = await startTestApp({
        db,
        env: {
          ENABLED_PARTS: 'ussd',
          USSD_SESSION_TTL_SECONDS: String(TTL_MS / 1000),
          USSD_RATE_LIMIT_PER_MINUTE: '0',
          REDIS_URL: '',
        },
        ...(inRedis ? { redis, redisPrefix: prefix } : {}),
      });
      const d = ussdDialog(t.request);
      const top = await d.dial();
      if (inRedis && redis) {
        const ttl = await redis.pttl(`${prefix}ussd:session:${d.sessionId}`);
        expect(ttl).toBeGreaterThan(TTL_MS - 5_000);
        expect(ttl).toBeLessThanOrEqual(TTL_MS);
      }
      await clock.elapse(d.sessionId, 50_000);
      const knowMore = await d.send('1');
      expect(knowMore).not.toBe(top);
      await clock.elapse(d.sessionId, 50_000);
      // 100 s after the dial but 50 s after the last request: still there.
      const alive = await t.request.get(`/api/ussd/debug/${d.sessionId}`).expect(200);
      expect(alive.body.debugInfo.context.message).toBe(knowMore.slice(4));
      await clock.elapse(d.sessionId, 10_001);
      const gone = await t.request.get(`/api/ussd/debug/${d.sessionId}`).expect(404);
      expect(gone.body.code).toBe('session_not_found');
      expect((await t.request.get('/api/ussd/sessions').expect(200)).body.activeSessions).not.toContain(
        d.sessionId,
      );
      // The user dials again: the top menu, in a fresh session.
      expect(await d.dial()).toBe(top);
      const fresh = await t.request.get(`/api/ussd/debug/${d.sessionId}`).expect(200);
      expect(fresh.body.debugInfo.state).toBe('preMenu');
    },
  );
});
