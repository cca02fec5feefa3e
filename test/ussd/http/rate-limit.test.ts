import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USSD_INVALID_INPUT_REPLY } from '../../../contracts/ussd.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../../helpers/app.js';
import { deleteKeys, openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';
import { scriptedUssdPart } from '../../helpers/scripted-test-engine.js';
import { ussdBody } from '../../helpers/ussd-dialog.js';

// Spec section 7 A / 8: more than USSD_RATE_LIMIT_PER_MINUTE (default 100) requests per minute from one IP
// address get HTTP 429 (defects #2 and #3 of the reference: it answered 500, and only in production).

/** The USSD gateway over the scripted engine, no database; in-process counters unless a Redis is given. */
const gateway = (env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> =>
  startTestApp({
    db: 'none',
    parts: { ussd: scriptedUssdPart() },
    env: { ENABLED_PARTS: 'ussd', REDIS_URL: '', ...env },
    ...options,
  });

const dial = (t: TestApp, ip?: string) => {
  const req = t.request.post('/api/ussd');
  if (ip !== undefined) req.set('x-forwarded-for', ip);
  return req.send(ussdBody());
};

async function sendMany(t: TestApp, n: number, ip?: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await dial(t, ip)).status);
  return statuses;
}

describe('rate limit, in-process counters', () => {
  it('answers the 101st request of a minute with 429 by default, with an ApiError body and RateLimit headers', async () => {
    await using t = await gateway();
    expect(await sendMany(t, 100)).toEqual(Array(100).fill(200));
    const res = await dial(t).expect(429);
    expect(res.body).toEqual({
      code: 'rate_limited',
      message: 'Too many requests from this address; try again in a minute.',
      requestId: res.headers['x-request-id'],
    });
    expect(res.headers['ratelimit-policy']).toBe('100;w=60');
    expect(res.headers['ratelimit']).toMatch(/^limit=100, remaining=0, reset=\d+$/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // The operator routes are not counted by it (issue 14 item 2).
    await t.request.get('/api/ussd/sessions').expect(200);
  });

  it('counts invalid requests too, and follows USSD_RATE_LIMIT_PER_MINUTE', async () => {
    await using t = await gateway({ USSD_RATE_LIMIT_PER_MINUTE: '3' });
    for (let i = 0; i < 3; i++) {
      await t.request.post('/api/ussd').send({ bad: true }).expect(200, USSD_INVALID_INPUT_REPLY);
    }
    await dial(t).expect(429);
  });

  it('0 disables the limit', async () => {
    await using t = await gateway({ USSD_RATE_LIMIT_PER_MINUTE: '0' });
    const statuses = await sendMany(t, 150);
    expect(statuses).toEqual(Array(150).fill(200));
    expect((await dial(t)).headers['ratelimit']).toBeUndefined();
  });

  it('ignores X-Forwarded-For when TRUST_PROXY_ENABLED is off: a spoofed header does not buy a new budget', async () => {
    await using t = await gateway({ USSD_RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY_ENABLED: 'false' });
    expect(await sendMany(t, 5, '203.0.113.1')).toEqual(Array(5).fill(200));
    await dial(t, '203.0.113.2').expect(429);
    await dial(t).expect(429);
  });

  it('takes the client IP from X-Forwarded-For when TRUST_PROXY_ENABLED is on: one budget per client', async () => {
    await using t = await gateway({ USSD_RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY_ENABLED: 'true' });
    expect(await sendMany(t, 5, '203.0.113.1')).toEqual(Array(5).fill(200));
    await dial(t, '203.0.113.1').expect(429);
    await dial(t, '203.0.113.2').expect(200);
    // One trusted hop: the address the proxy saw is the last entry, so a client cannot prepend its way out.
    await dial(t, '198.51.100.7, 203.0.113.1').expect(429);
  });

  it('gives an IPv6 client one budget per /56 network, so rotating addresses does not buy a new one', async () => {
    await using t = await gateway({ USSD_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY_ENABLED: 'true' });
    await dial(t, '2001:db8:aa:1::1').expect(200);
    await dial(t, '2001:db8:aa:2::9').expect(200);
    await dial(t, '2001:db8:aa:ff:1234::5').expect(200);
    await dial(t, '2001:db8:aa:3::1').expect(429);
    await dial(t, '2001:db8:ab::1').expect(200); // another /56
  });
});

describe.runIf(TEST_REDIS_URL)('rate limit, Redis counters', () => {
  const prefix = testRedisPrefix('test-rl');
  let redis: Redis;
  beforeAll(async () => {
    redis = await openTestRedis();
  });
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('holds across two instances sharing one Redis', async () => {
    const env = { USSD_RATE_LIMIT_PER_MINUTE: '6' };
    await using a = await gateway(env, { redis, redisPrefix: prefix });
    await using b = await gateway(env, { redis, redisPrefix: prefix });
    expect([...(await sendMany(a, 3)), ...(await sendMany(b, 3))]).toEqual(Array(6).fill(200));
    await dial(a).expect(429);
    await dial(b).expect(429);
    expect(Number(await redis.get(`${prefix}ussd:rl:127.0.0.1`))).toBeGreaterThanOrEqual(8);
  });
});
