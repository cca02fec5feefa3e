import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, maskPhone } from '../../../server/logger.js';
import type { AccountService } from '../../../server/ussd/accounts/accounts.js';
import { createAccountService } from '../../../server/ussd/accounts/account-service.js';
import { CUSTOMER_ID_PATTERN } from '../../../server/ussd/accounts/customer-id.js';
import { createPinCrypto, scryptCost } from '../../../server/ussd/crypto/pin-crypto.js';
import { loadPinKeyring } from '../../../server/ussd/crypto/pin-keys.js';
import type { Db } from '../../../server/db/index.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { TEST_SCRYPT_LOG2N } from '../../helpers/env.js';

const silent = createLogger('silent');
const K1 = randomBytes(32).toString('base64');
const service = (db: Db, current = K1, id = 'k1', previous?: string): AccountService =>
  createAccountService(
    db,
    createPinCrypto(
      loadPinKeyring(
        {
          NODE_ENV: 'test',
          PIN_ENCRYPTION_KEY: current,
          PIN_ENCRYPTION_KEY_ID: id,
          PIN_PREVIOUS_KEYS: previous,
        },
        silent,
      ),
      scryptCost(TEST_SCRYPT_LOG2N),
    ),
  );

let db: TestDb;
let accounts: AccountService;
let phoneSeq = 0;
const phone = (): string => `+2547100000${String(++phoneSeq).padStart(2, '0')}`;
const create = (pin = '48213', phoneNumber = phone()) =>
  accounts.createCustomer({
    fullName: 'Jane Doe',
    email: 'jane@example.org',
    pin,
    phoneNumber,
    language: 'en',
  });
const auditOf = async (customerId: string): Promise<string[]> =>
  (
    await db.kysely
      .selectFrom('audit_log')
      .select('event')
      .where('customer_id', '=', customerId)
      .orderBy('id')
      .execute()
  ).map((r) => r.event);

beforeAll(async () => {
  db = await openTestDb();
  accounts = service(db);
});
afterAll(() => db.close());

describe('AccountService', () => {
  it('creates a customer bound to the phone, found by id (any case) and by phone', async () => {
    const phoneNumber = phone();
    const { customerId } = await create('48213', phoneNumber);
    expect(customerId).toMatch(CUSTOMER_ID_PATTERN);
    const expected = {
      customerId,
      fullName: 'Jane Doe',
      email: 'jane@example.org',
      language: 'en',
      lockedAt: null,
    };
    expect(await accounts.findByCustomerId(customerId)).toEqual(expected);
    expect(await accounts.findByCustomerId(` ${customerId.toLowerCase()} `)).toEqual(expected);
    expect(await accounts.findByPhone(phoneNumber)).toEqual(expected);
    expect(await accounts.findByPhone('+254799999999')).toBeUndefined();
    expect(await accounts.findByCustomerId('C00000000')).toBeUndefined();
    expect(await accounts.findByCustomerId("C' or 1=1 --")).toBeUndefined();
    expect(await auditOf(customerId)).toEqual(['customer_created']);
  });

  it('answers concurrent phone lookups with one query, each caller its own customer', async () => {
    const [phoneA, phoneB, unbound] = [phone(), phone(), phone()];
    const a = await create('48213', phoneA);
    const b = await create('59314', phoneB);
    await accounts.setLanguage(b.customerId, 'sw');
    let selects = 0;
    const counted = service({
      ...db,
      prepared: (name, text, values) => {
        selects += 1;
        return db.prepared(name, text, values);
      },
    });
    const found = await Promise.all([phoneA, unbound, phoneB, phoneA].map((p) => counted.findByPhone(p)));
    expect(found.map((c) => c && [c.customerId, c.language])).toEqual([
      [a.customerId, 'en'],
      undefined,
      [b.customerId, 'sw'],
      [a.customerId, 'en'],
    ]);
    expect(selects).toBe(1);
    // Not cached: a later lookup sees a change committed after the first.
    await accounts.setLanguage(a.customerId, 'sw');
    expect((await counted.findByPhone(phoneA))?.language).toBe('sw');
    expect(selects).toBe(2);
  });

  it('refuses nonsense PINs when creating', async () => {
    await expect(create('12')).rejects.toThrow(RangeError);
    await expect(create('abcde')).rejects.toThrow(RangeError);
  });

  it('locks after three consecutive wrong PINs, audit-logged, and an operator unlock lifts it', async () => {
    const phoneNumber = phone();
    const { customerId } = await create('48213', phoneNumber);
    expect(await accounts.verifyPin(customerId, '11111', phoneNumber)).toEqual({
      ok: false,
      reason: 'wrong_pin',
      attemptsLeft: 2,
    });
    expect(await accounts.verifyPin(customerId, '22222', phoneNumber)).toEqual({
      ok: false,
      reason: 'wrong_pin',
      attemptsLeft: 1,
    });
    expect(await accounts.verifyPin(customerId, '33333', phoneNumber)).toEqual({
      ok: false,
      reason: 'locked',
    });
    // Locked: even the right PIN is refused, and nothing more is counted.
    expect(await accounts.verifyPin(customerId, '48213', phoneNumber)).toEqual({
      ok: false,
      reason: 'locked',
    });
    expect((await accounts.findByCustomerId(customerId))?.lockedAt).toBeInstanceOf(Date);
    const audit = await db.kysely
      .selectFrom('audit_log')
      .select(['event', 'phone', 'detail'])
      .where('customer_id', '=', customerId)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.event)).toEqual([
      'customer_created',
      'pin_failed',
      'pin_failed',
      'pin_failed',
      'account_locked',
    ]);
    for (const a of audit) expect(a.phone).toBe(maskPhone(phoneNumber));
    expect(audit[4]?.detail).toEqual({ attempts: 3 });

    expect(await accounts.unlock(customerId, 'ops-alice')).toBe(true);
    expect(await accounts.unlock(customerId, 'ops-alice')).toBe(false);
    expect((await auditOf(customerId)).at(-1)).toBe('account_unlocked');
    const unlocked = await db.kysely
      .selectFrom('audit_log')
      .select('detail')
      .where('customer_id', '=', customerId)
      .where('event', '=', 'account_unlocked')
      .executeTakeFirstOrThrow();
    expect(unlocked.detail).toEqual({ operator: 'ops-alice' });
    expect(await accounts.verifyPin(customerId, '48213', phoneNumber)).toMatchObject({
      ok: true,
      customer: { customerId },
    });
  });

  it('counts only consecutive wrong PINs: a right one resets the count', async () => {
    const phoneNumber = phone();
    const { customerId } = await create('48213', phoneNumber);
    await accounts.verifyPin(customerId, '11111', phoneNumber);
    await accounts.verifyPin(customerId, '11112', phoneNumber);
    expect((await accounts.verifyPin(customerId, '48213', phoneNumber)).ok).toBe(true);
    expect(await accounts.verifyPin(customerId, '11113', phoneNumber)).toEqual({
      ok: false,
      reason: 'wrong_pin',
      attemptsLeft: 2,
    });
  });

  it('answers unknown_customer for ids that do not exist or cannot exist', async () => {
    expect(await accounts.verifyPin('C22222222', '48213', phone())).toEqual({
      ok: false,
      reason: 'unknown_customer',
    });
    expect(await accounts.verifyPin('nonsense', '48213', phone())).toEqual({
      ok: false,
      reason: 'unknown_customer',
    });
    expect(await accounts.unlock('C22222222', 'ops')).toBe(false);
  });

  it('counts concurrent wrong PINs exactly', async () => {
    const phoneNumber = phone();
    const { customerId } = await create('48213', phoneNumber);
    const results = await Promise.all(
      ['1', '2', '3', '4'].map((d) => accounts.verifyPin(customerId, d.repeat(5), phoneNumber)),
    );
    expect(results.filter((r) => !r.ok && r.reason === 'locked')).toHaveLength(2);
    expect((await auditOf(customerId)).filter((e) => e === 'account_locked')).toHaveLength(1);
  });

  it('changes the PIN and the language', async () => {
    const phoneNumber = phone();
    const { customerId } = await create('48213', phoneNumber);
    await accounts.changePin(customerId, '90817', phoneNumber);
    expect((await accounts.verifyPin(customerId, '48213', phoneNumber)).ok).toBe(false);
    expect((await accounts.verifyPin(customerId, '90817', phoneNumber)).ok).toBe(true);
    await accounts.setLanguage(customerId, 'sw');
    expect((await accounts.findByCustomerId(customerId))?.language).toBe('sw');
    expect(await auditOf(customerId)).toEqual(['customer_created', 'pin_changed', 'pin_failed']);
    await expect(accounts.changePin('C22222222', '90817', phoneNumber)).rejects.toThrow(/unknown customer/);
    await expect(accounts.setLanguage('C22222222', 'sw')).rejects.toThrow(/unknown customer/);
  });

  it('records phone visits: first seen kept, last seen and count updated', async () => {
    const phoneNumber = phone();
    await accounts.recordPhoneVisit(phoneNumber);
    const first = await db.kysely
      .selectFrom('phones')
      .selectAll()
      .where('phone_number', '=', phoneNumber)
      .executeTakeFirstOrThrow();
    await accounts.recordPhoneVisit(phoneNumber);
    await accounts.recordPhoneVisit(phoneNumber);
    const after = await db.kysely
      .selectFrom('phones')
      .selectAll()
      .where('phone_number', '=', phoneNumber)
      .executeTakeFirstOrThrow();
    expect(first.visit_count).toBe(1);
    expect(after.visit_count).toBe(3);
    expect(after.first_seen).toEqual(first.first_seen);
    expect(after.last_seen.getTime()).toBeGreaterThanOrEqual(first.last_seen.getTime());
    expect(after.customer_id).toBeNull();
  });

  it('re-encrypts a PIN record under the current key at the first good login after a rotation', async () => {
    const phoneNumber = phone();
    const { customerId } = await create('48213', phoneNumber);
    const rotated = service(db, randomBytes(32).toString('base64'), 'k2', `k1:${K1}`);
    expect((await rotated.verifyPin(customerId, '48213', phoneNumber)).ok).toBe(true);
    const row = await db.kysely
      .selectFrom('customers')
      .select('pin_key_id')
      .where('customer_id', '=', customerId)
      .executeTakeFirstOrThrow();
    expect(row.pin_key_id).toBe('k2');
    expect(await auditOf(customerId)).toEqual(['customer_created', 'pin_reencrypted']);
    // The old key alone no longer opens it; the new one does, without rewriting again.
    await expect(accounts.verifyPin(customerId, '48213', phoneNumber)).rejects.toThrow(/unknown key id "k2"/);
    expect((await rotated.verifyPin(customerId, '48213', phoneNumber)).ok).toBe(true);
    expect(await auditOf(customerId)).toEqual(['customer_created', 'pin_reencrypted']);
  });

  it('writes nothing when a step of a transaction fails', async () => {
    const before = await db.kysely
      .selectFrom('customers')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    await sql`alter table audit_log rename to audit_log_away`.execute(db.kysely);
    try {
      await expect(create('48213')).rejects.toThrow();
    } finally {
      await sql`alter table audit_log_away rename to audit_log`.execute(db.kysely);
    }
    const after = await db.kysely
      .selectFrom('customers')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});
