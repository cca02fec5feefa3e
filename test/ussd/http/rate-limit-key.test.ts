import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config.js';
import { createLogger } from '../../../server/logger.js';
import { createAddressList } from '../../../server/ussd/http/address-list.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { haveRedisServer, startPrivateRedis } from '../../helpers/private-redis.js';
import { scriptedUssdPart } from '../../helpers/scripted-test-engine.js';
import { ussdBody } from '../../helpers/ussd-dialog.js';
import { captureLogs } from '../../helpers/logs.js';

// Behind an aggregator (issue 14 item 3): USSD_RATE_LIMIT_KEY and USSD_RATE_LIMIT_ALLOWLIST.
const gateway = (env: Record<string, string>): Promise<TestApp> =>
  startTestApp({
    db: 'none',
    parts: { ussd: scriptedUssdPart() },
    env: { ENABLED_PARTS: 'ussd', REDIS_URL: '', USSD_RATE_LIMIT_PER_MINUTE: '3', ...env },
  });

const dial = (t: TestApp, { ip, phone }: { ip?: string; phone?: string } = {}) => {
  const req = t.request.post('/api/ussd');
  if (ip !== undefined) req.set('x-forwarded-for', ip);
  return req.send(ussdBody(phone === undefined ? {} : { phoneNumber: phone }));
};

async function statuses(t: TestApp, n: number, who: { ip?: string; phone?: string }): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await dial(t, who)).status);
  return out;
}

const OK3 = [200, 200, 200];

describe('USSD_RATE_LIMIT_KEY', () => {
  it('ip (default): one budget per address, whatever the phone', async () => {
    await using t = await gateway({});
    expect(await statuses(t, 3, { phone: '+254700000001' })).toEqual(OK3);
    await dial(t, { phone: '+254700000002' }).expect(429);
  });

  it('phone: one budget per phone number from one address; a body without a valid phone is counted per IP', async () => {
    await using t = await gateway({ USSD_RATE_LIMIT_KEY: 'phone' });
    expect(await statuses(t, 3, { phone: '+254700000001' })).toEqual(OK3);
    await dial(t, { phone: '+254700000001' }).expect(429);
    expect(await statuses(t, 3, { phone: '+254700000002' })).toEqual(OK3);
    for (let i = 0; i < 3; i++) await t.request.post('/api/ussd').send({ bad: true }).expect(200);
    await t.request.post('/api/ussd').send({ bad: true }).expect(429);
  });

  it('ip+phone: one budget per address and phone number', async () => {
    await using t = await gateway({ USSD_RATE_LIMIT_KEY: 'ip+phone', TRUST_PROXY_ENABLED: 'true' });
    const a = { ip: '203.0.113.1', phone: '+254700000001' };
    expect(await statuses(t, 3, a)).toEqual(OK3);
    await dial(t, a).expect(429);
    await dial(t, { ...a, ip: '203.0.113.2' }).expect(200);
    await dial(t, { ...a, phone: '+254700000002' }).expect(200);
  });
});

describe('USSD_RATE_LIMIT_ALLOWLIST', () => {
  it('exempts gateway addresses and CIDRs from the per-IP limit; others keep it', async () => {
    await using t = await gateway({
      TRUST_PROXY_ENABLED: 'true',
      USSD_RATE_LIMIT_ALLOWLIST: '196.201.214.0/24, 2001:db8:1::/48,10.0.0.5',
    });
    for (const ip of ['196.201.214.7', '2001:db8:1:2::9', '10.0.0.5']) {
      expect(await statuses(t, 10, { ip })).toEqual(Array(10).fill(200));
    }
    expect(await statuses(t, 3, { ip: '196.201.215.7' })).toEqual(OK3);
    await dial(t, { ip: '196.201.215.7' }).expect(429);
  });

  it('matches the socket address when no proxy is trusted (a spoofed X-Forwarded-For buys nothing)', async () => {
    await using t = await gateway({ USSD_RATE_LIMIT_ALLOWLIST: '196.201.214.0/24' });
    expect(await statuses(t, 3, { ip: '196.201.214.7' })).toEqual(OK3);
    await dial(t, { ip: '196.201.214.7' }).expect(429);
    await using local = await gateway({ USSD_RATE_LIMIT_ALLOWLIST: '127.0.0.1' });
    expect(await statuses(local, 10, {})).toEqual(Array(10).fill(200));
  });

  it('with ip+phone, counts an allowlisted gateway’s subscribers per phone number, across its addresses', async () => {
    await using t = await gateway({
      USSD_RATE_LIMIT_KEY: 'ip+phone',
      TRUST_PROXY_ENABLED: 'true',
      USSD_RATE_LIMIT_ALLOWLIST: '196.201.214.0/24',
    });
    const phone = '+254700000001';
    expect([
      ...(await statuses(t, 2, { ip: '196.201.214.1', phone })),
      ...(await statuses(t, 1, { ip: '196.201.214.2', phone })),
    ]).toEqual(OK3);
    await dial(t, { ip: '196.201.214.3', phone }).expect(429);
    await dial(t, { ip: '196.201.214.3', phone: '+254700000002' }).expect(200);
  });

  it('is checked at start: a wrong entry or key is a configuration error naming the variable', () => {
    expect(() => loadConfig({ USSD_RATE_LIMIT_ALLOWLIST: '10.0.0.0/33' })).toThrow(ConfigError);
    expect(() => loadConfig({ USSD_RATE_LIMIT_ALLOWLIST: 'gateway.example' })).toThrow(
      /USSD_RATE_LIMIT_ALLOWLIST\.0: an IPv4 or IPv6 address, or a CIDR/,
    );
    expect(() => loadConfig({ USSD_RATE_LIMIT_KEY: 'msisdn' })).toThrow(/USSD_RATE_LIMIT_KEY/);
    expect(loadConfig({}).USSD_RATE_LIMIT_KEY).toBe('ip');
    expect(loadConfig({ USSD_RATE_LIMIT_ALLOWLIST: ' 10.0.0.0/8 ,::1' }).USSD_RATE_LIMIT_ALLOWLIST).toEqual([
      '10.0.0.0/8',
      '::1',
    ]);
  });

  it('matches IPv4-mapped IPv6 socket addresses as IPv4', () => {
    const list = createAddressList(['10.0.0.0/8', '2001:db8::/32', '192.0.2.1']);
    expect(['10.1.2.3', '::ffff:10.1.2.3', '2001:db8::5', '192.0.2.1'].map((a) => list.has(a))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['11.0.0.1', '2001:db9::1', '192.0.2.2', undefined].map((a) => list.has(a))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe.runIf(await haveRedisServer())('rate limit while Redis is down', () => {
  it('falls back to counting in this process (the limit holds per instance), and back to Redis when it returns', async () => {
    await using redis = await startPrivateRedis();
    const { lines, stream: sink } = captureLogs();
    await using t = await startTestApp({
      db: 'none',
      parts: { ussd: scriptedUssdPart() },
      logger: createLogger('info', sink),
      env: {
        ENABLED_PARTS: 'ussd',
        REDIS_URL: redis.url,
        USSD_RATE_LIMIT_PER_MINUTE: '3',
        LOG_LEVEL: 'info',
      },
    });
    await dial(t).expect(200);
    await redis.kill();
    // Sessions are in Redis too: the requests get the unavailable reply, but the limiter still limits.
    expect(await statuses(t, 3, {})).toEqual(OK3);
    await dial(t).expect(429);
    // One warning for the outage, whatever failed during it (the limiter, the sessions, the connection).
    const fellBack = lines.filter((l) => l.msg.startsWith('Redis does not answer'));
    expect(fellBack).toHaveLength(1);
    expect(fellBack[0]?.level).toBe(40);
    expect(fellBack[0]?.msg).toMatch(/rate limits .*count per instance/);

    await redis.start();
    const deadline = Date.now() + 10_000;
    while (t.ctx.redis?.status !== 'ready' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Fresh counts in the restarted Redis (it kept nothing): three more pass, the fourth is limited.
    expect(await statuses(t, 3, {})).toEqual(OK3);
    await dial(t).expect(429);
    const back = lines.filter((l) => l.msg === 'Redis answers again');
    expect(back).toHaveLength(1);
    expect(back[0]?.level).toBe(40);
  });
});
