import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreditsLedger, PaymentConflictError } from '../../../server/oracle/plugins/credits/ledger.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';

// The credits ledger on the test database (PostgreSQL in CI, PGlite otherwise): what each call writes and
// answers, two oracles side by side, and the races a busy oracle meets (concurrent turns, one transaction
// reported twice at once).

let db: TestDb;
let ledger: CreditsLedger;
let other: CreditsLedger;
let seq = 0;
const userDid = (): string => `did:key:z6MkLedger${++seq}`;
const txHash = (): string => randomBytes(32).toString('hex');
const payment = (hash: string, credits: number) => ({
  txHash: hash,
  denom: 'uixo',
  amount: String(credits * 10),
  credits,
  sender: 'ixo1sender',
  height: '7',
});

beforeAll(async () => {
  db = await openTestDb();
  ledger = new CreditsLedger(db.kysely, 'did:ixo:oracle-a', 100);
  other = new CreditsLedger(db.kysely, 'did:ixo:oracle-b', 5);
});
afterAll(() => db.close());

describe('CreditsLedger', () => {
  it('a new user starts at the initial balance, per oracle', async () => {
    const user = userDid();
    expect(await ledger.balance(user)).toBe(100);
    expect(await other.balance(user)).toBe(5);
    expect(await ledger.outstanding(user)).toEqual([]);
  });

  it('debits while the balance covers the price, down to exactly zero; then records one claim', async () => {
    const user = userDid();
    expect(await ledger.debit(user, 60)).toEqual({ ok: true, balance: 40 });
    expect(await ledger.debit(user, 40)).toEqual({ ok: true, balance: 0 });
    const refused = await ledger.debit(user, 1);
    expect(refused.ok).toBe(false);
    const claims = refused.ok ? [] : refused.claims;
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatch(/^claim_[0-9a-f-]{36}$/);
    // Trying again adds no claim.
    expect(await ledger.debit(user, 1)).toEqual({
      ok: false,
      claims,
      paymentMemo: expect.stringMatching(/^pay_[0-9a-f]{32}$/),
    });
    expect(await ledger.outstanding(user)).toEqual(claims);
    expect(await ledger.balance(user)).toBe(0);
    // The other oracle's account of the same user is untouched.
    expect(await other.balance(user)).toBe(5);
    expect(await other.outstanding(user)).toEqual([]);
    const row = await db.kysely
      .selectFrom('usage_claims')
      .selectAll()
      .where('id', '=', claims[0] ?? '')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ oracle_did: 'did:ixo:oracle-a', user_did: user, status: 'outstanding' });
    expect(Number(row.amount)).toBe(1);
  });

  it('concurrent debits never overdraw', async () => {
    const user = userDid();
    const results = await Promise.all(Array.from({ length: 8 }, () => ledger.debit(user, 30)));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(await ledger.balance(user)).toBe(10);
  });

  it('a payment credits, settles the outstanding claims (sorted) and is recorded once, case-insensitively', async () => {
    const user = userDid();
    await ledger.debit(user, 100);
    const refused = await ledger.debit(user, 50);
    const claims = refused.ok ? [] : refused.claims;
    const hash = txHash();
    const paid = await ledger.pay(user, payment(hash.toUpperCase(), 70));
    expect(paid).toEqual({ balance: 70, settledClaims: [...claims].sort() });
    expect(await ledger.outstanding(user)).toEqual([]);
    const settled = await db.kysely
      .selectFrom('usage_claims')
      .select(['status', 'settled_by'])
      .where('id', 'in', claims)
      .execute();
    expect(settled).toEqual(claims.map(() => ({ status: 'settled', settled_by: hash })));
    // The same transaction again (any case): the first answer, nothing credited.
    expect(await ledger.pay(user, payment(hash, 70))).toEqual(paid);
    expect(await ledger.recorded(user, hash.toUpperCase())).toEqual(paid);
    expect(await ledger.balance(user)).toBe(70);
    const row = await db.kysely
      .selectFrom('credit_payments')
      .selectAll()
      .where('tx_hash', '=', hash)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      oracle_did: 'did:ixo:oracle-a',
      user_did: user,
      denom: 'uixo',
      sender: 'ixo1sender',
      height: '7',
      settled_claims: paid.settledClaims,
    });
    expect([String(row.amount), Number(row.credits), Number(row.balance_after)]).toEqual(['700', 70, 70]);
  });

  it('a transaction never recorded: recorded() is undefined', async () => {
    expect(await ledger.recorded(userDid(), txHash())).toBeUndefined();
  });

  it('a transaction recorded for another user, or on another oracle: PaymentConflictError, nothing credited', async () => {
    const first = userDid();
    const second = userDid();
    const hash = txHash();
    await ledger.pay(first, payment(hash, 10));
    await expect(ledger.pay(second, payment(hash, 10))).rejects.toBeInstanceOf(PaymentConflictError);
    await expect(ledger.recorded(second, hash)).rejects.toThrow(PaymentConflictError);
    await expect(other.pay(first, payment(hash, 10))).rejects.toBeInstanceOf(PaymentConflictError);
    await expect(other.recorded(first, hash)).rejects.toThrow(
      'this transaction was reported by another user',
    );
    expect(await ledger.balance(second)).toBe(100);
    expect(await other.balance(first)).toBe(5);
    expect(new PaymentConflictError('x').name).toBe('PaymentConflictError');
  });

  it('one transaction reported several times at once is credited once, every report answered alike', async () => {
    const user = userDid();
    const hash = txHash();
    const answers = await Promise.all(Array.from({ length: 6 }, () => ledger.pay(user, payment(hash, 25))));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual({ balance: 125, settledClaims: [] });
    expect(await ledger.balance(user)).toBe(125);
  });
});
