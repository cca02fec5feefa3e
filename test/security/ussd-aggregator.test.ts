// Issue 36, item 4: nothing authenticated the USSD aggregator. Anyone who sent a victim's phone number to
// POST /api/ussd saw the victim's customer id and locked the account with three wrong PINs. These tests run
// the real server (startTestApp: the USSD part over the menus and the database, embedded or PostgreSQL +
// Redis when DATABASE_URL / REDIS_URL are set) and send what an attacker and an aggregator send.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.js';
import type { UssdPart } from '../../server/ussd/part.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { TEST_ENV } from '../helpers/env.js';
import { captureLogs } from '../helpers/logs.js';
import { shippedReplies } from '../helpers/shipped-menus.js';

const SECRET = randomBytes(32).toString('base64');
const [TOP = ''] = await shippedReplies('');

interface Answer {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

interface PostOptions {
  /** `user:password`, as Node sends the credentials of a URL (`https://user:secret@host/api/ussd`). */
  auth?: string;
  headers?: Record<string, string>;
  /** The client's own address (another loopback address than 127.0.0.1, e.g. 127.0.0.2). */
  localAddress?: string;
  /** Form-encoded, as Africa's Talking posts. */
  form?: boolean;
  path?: string;
}

/** One POST of a USSD body on a connection of its own; the status, body and headers as they came. */
function post(url: string, body: Record<string, string>, options: PostOptions = {}): Promise<Answer> {
  const payload = options.form ? new URLSearchParams(body).toString() : JSON.stringify(body);
  const target = new URL(options.path ?? '/api/ussd', url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: false,
        ...(options.auth !== undefined ? { auth: options.auth } : {}),
        ...(options.localAddress !== undefined ? { localAddress: options.localAddress } : {}),
        headers: {
          'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A USSD session of one phone: each call sends the accumulated text. */
function session(url: string, phoneNumber: string, options: PostOptions = {}) {
  const sessionId = `ATUid_${randomBytes(6).toString('hex')}`;
  return (text: string): Promise<Answer> =>
    post(url, { sessionId, serviceCode: '*384*123#', phoneNumber, text }, options);
}

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('POST /api/ussd with USSD_AGGREGATOR_SECRET', () => {
  let t: TestApp;
  const logs = captureLogs();
  beforeAll(async () => {
    t = await startTestApp({
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0', USSD_AGGREGATOR_SECRET: SECRET },
      logger: createLogger('info', logs.stream),
    });
  });
  afterAll(() => t?.close());

  it("anyone who sent a victim's phone number saw the victim's customer id and locked the account with three wrong PINs", async () => {
    const phone = '+254711360036';
    const { customerId } = await t.part<UssdPart>('ussd').accounts.createCustomer({
      fullName: 'Victim',
      email: null,
      pin: '24680',
      phoneNumber: phone,
      language: 'en',
    });

    // The attacker: no credential, then wrong ones; the login menu of the victim's phone and three wrong PINs.
    const attempts: [string, PostOptions][] = [
      ['none', {}],
      ['wrong basic password', { auth: 'ussd:not-the-secret-at-all-0000000000' }],
      ['the secret as the user name', { auth: `${SECRET}:` }],
      ['wrong bearer', { headers: { authorization: 'Bearer not-the-secret-at-all-0000000000' } }],
      ['another scheme', { headers: { authorization: `Token ${SECRET}` } }],
    ];
    const seen: string[] = [];
    for (const [name, options] of attempts) {
      const send = session(t.url, phone, options);
      for (const text of [
        '',
        '2',
        '2*1',
        '2*1*1',
        '2*1*1*11111',
        '2*1*1*11111*22222',
        '2*1*1*11111*22222*33333',
      ]) {
        const answer = await send(text);
        seen.push(
          `${name} ${JSON.stringify(text)}: ${answer.status} ${String(answer.headers['www-authenticate'])} ${answer.headers['content-type']} ${JSON.stringify(answer.text)}`,
        );
      }
    }
    expect(
      seen.filter((line) => !/ 401 Basic realm="ussd" text\/plain; charset=utf-8 "Unauthorized"$/.test(line)),
    ).toEqual([]);
    expect(seen.join('\n')).not.toContain(customerId);

    // The aggregator, with the secret: the victim logs in with the right PIN; nothing counted against it.
    const victim = session(t.url, phone, { auth: `ussd:${SECRET}` });
    expect((await victim('')).text).toBe(TOP);
    expect((await victim('2*1')).text).toContain(`1. Use account ${customerId}`);
    expect((await victim('2*1*1*24680')).text).toMatch(/^CON You are logged in\./);
    expect(await t.part<UssdPart>('ussd').accounts.findByCustomerId(customerId)).toMatchObject({
      lockedAt: null,
    });
  });

  it("serves Africa's Talking's callback URL with the secret as its password, form-encoded, and a Bearer header", async () => {
    // https://ussd:<secret>@host/api/ussd: the credentials of the URL become `Authorization: Basic`.
    const url = new URL(t.url);
    url.username = 'ussd';
    url.password = SECRET;
    const fromUrl = await post(
      url.toString(),
      { sessionId: 'at-1', serviceCode: '*384*123#', phoneNumber: '+254711000001', text: '' },
      { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`, form: true },
    );
    expect({ status: fromUrl.status, text: fromUrl.text }).toEqual({ status: 200, text: TOP });
    // Any user name: the password is the secret.
    const anyUser = await session(t.url, '+254711000002', {
      headers: { authorization: basic('at', SECRET) },
    })('');
    expect({ status: anyUser.status, text: anyUser.text }).toEqual({ status: 200, text: TOP });
    const bearer = await session(t.url, '+254711000003', { headers: { authorization: `Bearer ${SECRET}` } })(
      '',
    );
    expect({ status: bearer.status, text: bearer.text }).toEqual({ status: 200, text: TOP });
  });

  it('refuses every spelling of the route that reaches the session handler, not only POST /api/ussd exactly', async () => {
    for (const path of ['/api/ussd/', '/API/USSD', '/api/ussd?x=1']) {
      const answer = await post(
        t.url,
        { sessionId: 'spelling', serviceCode: '*384*123#', phoneNumber: '+254711000004', text: '' },
        { path },
      );
      expect({ path, status: answer.status, text: answer.text }).toEqual({
        path,
        status: 401,
        text: 'Unauthorized',
      });
    }
  });

  it('never logs the secret or the credential a caller sent', async () => {
    const wrong = `wrong-${randomBytes(16).toString('hex')}`;
    await session(t.url, '+254711000005', { auth: `ussd:${wrong}` })('');
    const text = JSON.stringify(logs.lines);
    expect(text).toContain('ussd: refused a caller');
    expect(text).not.toContain(wrong);
    expect(text).not.toContain(SECRET);
  });

  it('`npm run ussd` sends the secret of its environment (or .env), and without it says what is missing', async () => {
    const run = (env: Record<string, string>) =>
      new Promise<{ code: number | null; out: string }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', 'scripts/tools/ussd-simulator.ts', '--url', t.url, '--phone', '+254711000006'],
          {
            env: { ...process.env, ...TEST_ENV, USSD_AGGREGATOR_SECRET: '', ...env },
            stdio: ['pipe', 'pipe', 'pipe'],
          },
        );
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out }));
        child.stdin.end('1\n');
      });
    const without = await run({});
    expect(without.code).toBe(1);
    expect(without.out).toContain(
      'Error: the gateway answered 401: set USSD_AGGREGATOR_SECRET (in the environment or .env) as the server has it',
    );
    const withSecret = await run({ USSD_AGGREGATOR_SECRET: SECRET });
    const [top = '', next = ''] = await shippedReplies('', '1');
    expect(withSecret.out).toContain(`| ${top.slice(4).split('\n')[0] ?? ''}`);
    expect(withSecret.out).toContain(`| ${next.slice(4).split('\n')[0] ?? ''}`);
    expect(withSecret.code).toBe(0);
  });
});

describe('POST /api/ussd with USSD_AGGREGATOR_ALLOWLIST', () => {
  let behindProxy: TestApp;
  let direct: TestApp;
  let both: TestApp;
  beforeAll(async () => {
    [behindProxy, direct, both] = await Promise.all([
      // nginx on this machine; the aggregator's addresses in X-Forwarded-For, believed from 127.0.0.1 only.
      startTestApp({
        env: {
          ENABLED_PARTS: 'ussd',
          USSD_RATE_LIMIT_PER_MINUTE: '0',
          TRUST_PROXY_ENABLED: '127.0.0.1',
          USSD_AGGREGATOR_ALLOWLIST: '192.0.2.10,198.51.100.0/24',
        },
      }),
      // No proxy: the socket's address.
      startTestApp({
        env: {
          ENABLED_PARTS: 'ussd',
          USSD_RATE_LIMIT_PER_MINUTE: '0',
          USSD_AGGREGATOR_ALLOWLIST: '127.0.0.2',
        },
      }),
      startTestApp({
        env: {
          ENABLED_PARTS: 'ussd',
          USSD_RATE_LIMIT_PER_MINUTE: '0',
          USSD_AGGREGATOR_ALLOWLIST: '127.0.0.2',
          USSD_AGGREGATOR_SECRET: SECRET,
        },
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([behindProxy?.close(), direct?.close(), both?.close()]);
  });

  const dial = (app: TestApp, options: PostOptions) => session(app.url, '+254711000010', options)('');
  const outcome = (a: Answer) => ({ status: a.status, type: a.headers['content-type'], text: a.text });
  const FORBIDDEN = { status: 403, type: 'text/plain; charset=utf-8', text: 'Forbidden' };
  const SERVED = { status: 200, type: 'text/plain; charset=utf-8', text: TOP };

  it('answers 403 to a client address outside the allowlist, as TRUST_PROXY_ENABLED works it out', async () => {
    const from = (address: string) => dial(behindProxy, { headers: { 'x-forwarded-for': address } });
    expect(outcome(await from('192.0.2.10'))).toEqual(SERVED);
    expect(outcome(await from('198.51.100.77'))).toEqual(SERVED);
    expect(outcome(await from('203.0.113.5'))).toEqual(FORBIDDEN);
    // The proxy itself, and a proxy chain whose nearest untrusted hop is the attacker.
    expect(outcome(await dial(behindProxy, {}))).toEqual(FORBIDDEN);
    expect(outcome(await from('192.0.2.10, 203.0.113.5'))).toEqual(FORBIDDEN);
  });

  it('matches the socket address without a trusted proxy, and never believes X-Forwarded-For then', async () => {
    expect(outcome(await dial(direct, { localAddress: '127.0.0.2' }))).toEqual(SERVED);
    expect(outcome(await dial(direct, {}))).toEqual(FORBIDDEN);
    expect(outcome(await dial(direct, { headers: { 'x-forwarded-for': '127.0.0.2' } }))).toEqual(FORBIDDEN);
  });

  it('with an allowlist and a secret, wants both: 403 from another address, 401 without the secret', async () => {
    expect(outcome(await dial(both, { localAddress: '127.0.0.2', auth: `ussd:${SECRET}` }))).toEqual(SERVED);
    expect(outcome(await dial(both, { auth: `ussd:${SECRET}` }))).toEqual(FORBIDDEN);
    const noSecret = await dial(both, { localAddress: '127.0.0.2' });
    expect(outcome(noSecret)).toEqual({
      status: 401,
      type: 'text/plain; charset=utf-8',
      text: 'Unauthorized',
    });
    expect(noSecret.headers['www-authenticate']).toBe('Basic realm="ussd"');
  });
});

describe('POST /api/ussd in development and tests, unconfigured', () => {
  it('stays open, as the spec says by default (the simulator and the flows need nothing)', async () => {
    await using t = await startTestApp({ env: { ENABLED_PARTS: 'ussd' } });
    const answer = await session(t.url, '+254711000020')('');
    expect({ status: answer.status, text: answer.text }).toEqual({ status: 200, text: TOP });
  });
});
