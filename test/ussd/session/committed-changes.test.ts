import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USSD_SESSION_EXPIRED_REPLY } from '../../../contracts/ussd.js';
import { createLogger, maskPhone } from '../../../server/logger.js';
import type { AccountService } from '../../../server/ussd/accounts/accounts.js';
import type { UssdSession } from '../../../server/ussd/engine/types.js';
import type { UssdPart } from '../../../server/ussd/part.js';
import { createMemorySessionStore } from '../../../server/ussd/session/memory-session-store.js';
import { createSessionFlow, type EndedReply } from '../../../server/ussd/session/session-flow.js';
import type { SessionStore } from '../../../server/ussd/session/session-store.js';
import { StoreTimeoutError } from '../../../server/with-timeout.js';
import { engineMenusPart } from '../../helpers/fixture-menus.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { testEngine } from '../../helpers/engine-dialer.js';
import { createInMemoryAccountService } from '../../helpers/in-memory-account-service.js';
import { ussdDialog } from '../../helpers/ussd-dialog.js';
import { haveRedisServer, startPrivateRedis } from '../../helpers/private-redis.js';

// Issue 16 item 1: no outcome the user never learns about. A reply that reports a committed change is
// delivered even when the session store fails afterwards; creating an account is idempotent per (phone,
// session); re-binding a phone says so.

const PHONE = '+254700000077';
const CREATED = /^CON Account created\. Your customer ID is (C[A-Z0-9]{8})\. Write it down\./;
const TO_CONFIRM = ['', '2', '2*2', '2*2*Jane Doe', '2*2*Jane Doe*00', '2*2*Jane Doe*00*13579'];
const CONFIRM = '2*2*Jane Doe*00*13579*13579';

/** What the confirmation screen hands the account service, for `phone` (the session id added by the caller). */
function newCustomer(phone: string) {
  return { fullName: 'Jo Doe', email: null, pin: '13579', phoneNumber: phone, language: 'en' as const };
}

/** A memory store whose writes (set, delete) fail while `failing` is on, as Redis killed mid-request. */
function failingOnWrite<T>(): SessionStore<T> & { failing: boolean } {
  const inner = createMemorySessionStore<T>();
  const store = {
    failing: false,
    get: (id: string) => inner.get(id),
    list: () => inner.list(),
    close: () => inner.close(),
    set(id: string, value: T, ttl: number) {
      return store.failing
        ? Promise.reject(new StoreTimeoutError('redis SET timed out after 1000 ms'))
        : inner.set(id, value, ttl);
    },
    delete(id: string) {
      return store.failing
        ? Promise.reject(new StoreTimeoutError('redis DEL timed out after 1000 ms'))
        : inner.delete(id);
    },
  };
  return store;
}

function flowOver(accounts: AccountService) {
  const sessions = failingOnWrite<UssdSession>();
  const ended = failingOnWrite<EndedReply>();
  const engine = testEngine({ accounts });
  const flow = createSessionFlow({ engine, sessions, ended, ttlSeconds: 60, logger: createLogger('silent') });
  const send = (sessionId: string, text: string, phoneNumber = PHONE) =>
    flow.handle({ sessionId, serviceCode: '*384*123#', phoneNumber, text });
  const failWrites = (on: boolean) => {
    sessions.failing = on;
    ended.failing = on;
  };
  return { send, failWrites, sessions };
}

describe('a session store that fails on save (injected)', () => {
  it('Redis killed while users confirmed their PIN: they were told "Service temporarily unavailable" though the account was committed; now they get the account-created reply', async () => {
    const accounts = createInMemoryAccountService();
    const { send, failWrites } = flowOver(accounts);
    for (const text of TO_CONFIRM) await send('s1', text);
    failWrites(true);
    const reply = await send('s1', CONFIRM);
    expect(reply).toMatch(CREATED);
    expect([...accounts.customers.keys()]).toEqual([CREATED.exec(reply)?.[1]]);
  });

  it('a lock after the third wrong PIN is reported even when the session save fails', async () => {
    const accounts = createInMemoryAccountService();
    const { customerId } = await accounts.createCustomer({
      fullName: 'Jane Doe',
      email: null,
      pin: '24680',
      phoneNumber: '+254700000099',
      language: 'en',
    });
    const { send, failWrites } = flowOver(accounts);
    const texts = [
      '',
      '2',
      '2*1',
      `2*1*${customerId}`,
      `2*1*${customerId}*11111`,
      `2*1*${customerId}*11111*22222`,
    ];
    for (const text of texts) await send('s1', text);
    failWrites(true);
    expect(await send('s1', `${texts.at(-1)}*33333`)).toBe(
      'END Your account is locked after 3 wrong PINs. To unlock it, contact support on 0800 000 000.',
    );
  });

  it('a step that commits nothing still answers the unavailable reply when its save fails (nothing happened)', async () => {
    const accounts = createInMemoryAccountService();
    const { send, failWrites } = flowOver(accounts);
    await send('s1', '');
    failWrites(true);
    // The flow fails the request; the router answers it with the unavailable reply (session-endpoint tests).
    await expect(send('s1', '2')).rejects.toBeInstanceOf(StoreTimeoutError);
    expect(accounts.calls.filter((c) => c !== 'findByPhone' && c !== 'recordPhoneVisit')).toEqual([]);
  });
});

describe('account creation on the real accounts', () => {
  let t: TestApp;
  let accounts: AccountService;
  beforeAll(async () => {
    t = await startTestApp({
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0', REDIS_URL: '' },
      parts: { ussd: engineMenusPart() },
    });
    accounts = t.part<UssdPart>('ussd').accounts;
  });
  afterAll(() => t.close());

  const customersOf = async (phone: string): Promise<string[]> => {
    const rows = await t.db.kysely
      .selectFrom('audit_log')
      .select('customer_id')
      .where('event', '=', 'customer_created')
      .where('phone', '=', maskPhone(phone))
      .execute();
    return rows.map((r) => r.customer_id ?? '');
  };

  it('one user who tried again got a second account: a retry of the same sessionId and text after a failed save gets the first one', async () => {
    const phone = '+254700000101';
    const { send, failWrites, sessions } = flowOver(accounts);
    for (const text of TO_CONFIRM) await send('s-retry', text, phone);
    failWrites(true);
    const first = await send('s-retry', CONFIRM, phone);
    expect(first).toMatch(CREATED);
    // The store is back; the stale pre-confirmation session is still there (its delete failed too).
    failWrites(false);
    expect((await sessions.get('s-retry'))?.state).toBe('createPinConfirm');
    const retry = await send('s-retry', CONFIRM, phone);
    expect(retry).toBe(first);
    expect(await customersOf(phone)).toEqual([CREATED.exec(first)?.[1]]);
    // The same, straight at the service: one customer per (phone, session).
    const input = newCustomer(phone);
    const a = await accounts.createCustomer({ ...input, sessionId: 's-direct' });
    const b = await accounts.createCustomer({ ...input, sessionId: 's-direct' });
    expect(b).toEqual({ customerId: a.customerId, existing: true });
  });

  it('concurrent retries of one confirmation create one account', async () => {
    const phone = '+254700000102';
    const input = newCustomer(phone);
    const results = await Promise.all(
      [1, 2, 3].map(() => accounts.createCustomer({ ...input, sessionId: 's-race' })),
    );
    expect(new Set(results.map((r) => r.customerId)).size).toBe(1);
    expect(await customersOf(phone)).toHaveLength(1);
  });

  it('the phone was re-bound, leaving the first account with no phone, silently: now the screen names the older account, which still opens by its ID', async () => {
    const phone = '+254700000103';
    const d1 = ussdDialog(t.request, { phoneNumber: phone });
    await d1.dial();
    for (const input of ['2', '2', 'Jane Doe', '00', '13579']) await d1.send(input);
    const first = CREATED.exec(await d1.send('13579'))?.[1];
    expect(first).toBeDefined();
    const d2 = ussdDialog(t.request, { phoneNumber: phone });
    await d2.dial();
    for (const input of ['2', '2', 'John Doe', '00', '24681']) await d2.send(input);
    const second = await d2.send('24681');
    expect(second).toMatch(
      new RegExp(
        `^CON Old account ${first} still opens by its ID\\.\\n\\nAccount created\\. Your customer ID is C`,
      ),
    );
    const rebound = await t.db.kysely
      .selectFrom('audit_log')
      .select(['customer_id', 'detail'])
      .where('event', '=', 'phone_rebound')
      .where('customer_id', '=', first ?? '')
      .execute();
    expect(rebound).toHaveLength(1);
    // The older account still logs in with its customer ID and PIN.
    expect((await accounts.verifyPin(first ?? '', '13579', phone)).ok).toBe(true);
  });
});

describe.runIf(await haveRedisServer())('a real Redis that stops taking writes mid-request', () => {
  it('Redis killed while users confirmed their PIN: the confirmation is answered with the account, and a retry creates no second one', async () => {
    await using redis = await startPrivateRedis();
    await using t = await startTestApp({
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0', REDIS_URL: redis.url },
      parts: { ussd: engineMenusPart() },
    });
    const phone = '+254700000104';
    const d = ussdDialog(t.request, { phoneNumber: phone });
    await d.dial();
    for (const input of ['2', '2', 'Jane Doe', '00', '13579']) await d.send(input);
    // Reads go on, writes (the session SET and DEL) wait past the store's 1 s timeout: the save fails
    // after the account is committed, as when Redis dies between the two.
    const admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await admin.connect();
    await admin.call('CLIENT', 'PAUSE', '2500', 'WRITE');
    const reply = await d.send('13579');
    expect(reply).toMatch(CREATED);
    // Redis takes writes again (the 2.5 s pause is only a ceiling): the writes it held run first.
    await admin.call('CLIENT', 'UNPAUSE');
    admin.disconnect();
    // The gateway retries the same request: the same account, or the session is over; never a second one.
    const retry = await d.resend();
    expect([reply, USSD_SESSION_EXPIRED_REPLY]).toContain(retry);
    const created = await t.db.kysely
      .selectFrom('audit_log')
      .select('customer_id')
      .where('event', '=', 'customer_created')
      .execute();
    expect(created.map((r) => r.customer_id)).toEqual([CREATED.exec(reply)?.[1]]);
  });
});
