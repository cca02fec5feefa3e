// Payments verified on the chain (POST /credits/payments): only a successful transaction that is bound to the
// caller (its memo contains the caller's payment reference, or it is sent from the account the caller's DID
// names) and sends at least the reported amount, in CREDITS_DENOM, to payTo is credited, once. Unknown, failed,
// mismatched, someone else's and replayed transactions are refused and write nothing.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as memoMigration from '../../server/db/migrations/0008-payment-memos.js';
import { FIXTURE_PAY_TO_ADDRESS } from '../../server/oracle/plugins/credits/index.js';
import { CreditsLedger } from '../../server/oracle/plugins/credits/ledger.js';
import { openTestDb } from '../helpers/db.js';
import { broadcastSends, type Send } from '../helpers/chain-tx.js';
import { FIXTURE_USER_DID, fixtureUser } from '../helpers/oracle/fixture-user.js';
import { newUser, oracleApi } from '../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../helpers/oracle/oracle-app.js';

let app: OracleApp;

beforeAll(async () => {
  app = await startOracleApp({
    env: { ORACLE_FEATURES: 'credits', CREDITS_INITIAL_BALANCE: '1', CREDITS_PRICE_PER_TURN: '1' },
  });
});
afterAll(() => app.close());

const uixo = (amount: string) => [{ denom: 'uixo', amount }];
const pay = (to: string, amount: { denom: string; amount: string }[], from = 'ixo1payer'): Send => ({
  from,
  to,
  amount,
});

/** A user whose balance ran out, with the claim their refused turn left. */
async function brokeUser(signer?: Parameters<typeof newUser>[1]) {
  const user = await newUser(app.oracleDid, signer);
  const api = oracleApi(app.url, user);
  const session = await api.createSession();
  expect((await api.call('POST', `/messages/${session.sessionId}`, { message: 'one' })).status).toBe(200);
  const refused = await api.call('POST', `/messages/${session.sessionId}`, { message: 'two' });
  expect(refused.status).toBe(402);
  const memo = refused.body.paymentMemo as string;
  expect(memo).toMatch(/^pay_[0-9a-f]{32}$/);
  return { user, api, claims: refused.body.outstandingClaims as string[], memo };
}

describe('payments are verified on the chain', () => {
  it('credits what a successful transaction sent to payTo, settles the claims, once', async () => {
    const { api, claims, memo } = await brokeUser();
    const tx = await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('7000'))], memo);
    // Reported less than sent: credited what the chain says was sent (7,000 uixo = 7 credits).
    const report = { txHash: tx.txhash.toLowerCase(), amount: { denom: 'uixo', amount: '3000' } };
    const first = await api.call('POST', '/credits/payments', report);
    expect(first).toMatchObject({ status: 200, body: { balance: 7, settledClaims: claims } });
    expect(await api.call('POST', '/credits/payments', report)).toMatchObject({
      status: 200,
      body: first.body,
    });
    expect((await api.call('GET', '/credits')).body).toMatchObject({ balance: 7, outstandingClaims: [] });
  });

  it('the same transaction reported by several requests at once is credited once', async () => {
    const { api, memo } = await brokeUser();
    const tx = await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('4000'))], memo);
    const report = { txHash: tx.txhash, amount: { denom: 'uixo', amount: '4000' } };
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => api.call('POST', '/credits/payments', report)),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await api.call('GET', '/credits')).body.balance).toBe(4);
  });

  it('a transaction another user reported first: 409 payment_conflict, nothing credited', async () => {
    const first = await brokeUser();
    const tx = await broadcastSends(
      app.ctx.chainGrpcUrl,
      [pay(FIXTURE_PAY_TO_ADDRESS, uixo('2000'))],
      first.memo,
    );
    const report = { txHash: tx.txhash, amount: { denom: 'uixo', amount: '2000' } };
    expect((await first.api.call('POST', '/credits/payments', report)).status).toBe(200);
    const second = await brokeUser();
    expect(await second.api.call('POST', '/credits/payments', report)).toMatchObject({
      status: 409,
      body: { code: 'payment_conflict', statusCode: 409 },
    });
    expect((await second.api.call('GET', '/credits')).body).toMatchObject({
      balance: 0,
      outstandingClaims: second.claims,
    });
  });

  const refusals: [
    string,
    (memo: string) => Promise<{ txHash: string; amount: { denom: string; amount: string } }>,
    number,
    Record<string, unknown>,
  ][] = [
    [
      'a hash the chain does not know',
      () =>
        Promise.resolve({
          txHash: randomBytes(32).toString('hex'),
          amount: { denom: 'uixo', amount: '1000' },
        }),
      404,
      { code: 'payment_not_found' },
    ],
    [
      'a transaction that failed on chain (insufficient funds)',
      async (memo) => ({
        txHash: (
          await broadcastSends(
            app.ctx.chainGrpcUrl,
            [pay(FIXTURE_PAY_TO_ADDRESS, uixo('99000000000'), 'ixo1spender')],
            memo,
          )
        ).txhash,
        amount: { denom: 'uixo', amount: '99000000000' },
      }),
      422,
      { code: 'payment_failed', message: expect.stringContaining('code 5') },
    ],
    [
      'a transaction to another account',
      async (memo) => ({
        txHash: (await broadcastSends(app.ctx.chainGrpcUrl, [pay('ixo1someoneelse', uixo('5000'))], memo))
          .txhash,
        amount: { denom: 'uixo', amount: '5000' },
      }),
      422,
      { code: 'payment_mismatch', mismatch: ['recipient'] },
    ],
    [
      'a transaction in another denom',
      async (memo) => ({
        txHash: (
          await broadcastSends(
            app.ctx.chainGrpcUrl,
            [pay(FIXTURE_PAY_TO_ADDRESS, [{ denom: 'uatom', amount: '5000' }])],
            memo,
          )
        ).txhash,
        amount: { denom: 'uixo', amount: '5000' },
      }),
      422,
      { code: 'payment_mismatch', mismatch: ['denom'] },
    ],
    [
      'a report in another denom than CREDITS_DENOM',
      async (memo) => ({
        txHash: (
          await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('5000'))], memo)
        ).txhash,
        amount: { denom: 'uatom', amount: '5000' },
      }),
      422,
      { code: 'payment_mismatch', mismatch: ['denom'] },
    ],
    [
      'a report of more than the transaction sent',
      async (memo) => ({
        txHash: (
          await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('5000'))], memo)
        ).txhash,
        amount: { denom: 'uixo', amount: '100000000' },
      }),
      422,
      {
        code: 'payment_mismatch',
        mismatch: ['amount'],
        message: expect.stringContaining('it sends 5000 uixo, less than the 100000000 reported'),
      },
    ],
  ];

  it.each(refusals)('%s: refused, nothing written', async (_name, report, status, body) => {
    const { api, claims, memo } = await brokeUser();
    const answer = await api.call('POST', '/credits/payments', await report(memo));
    expect(answer).toMatchObject({ status, body: { statusCode: status, ...body } });
    expect((await api.call('GET', '/credits')).body).toMatchObject({ balance: 0, outstandingClaims: claims });
  });

  it('a did:ixo user pays only from the account their DID names', async () => {
    const { api } = await brokeUser(await fixtureUser());
    const account = FIXTURE_USER_DID.replace('did:ixo:', '');
    const fromElsewhere = await broadcastSends(app.ctx.chainGrpcUrl, [
      pay(FIXTURE_PAY_TO_ADDRESS, uixo('3000'), 'ixo1notthefixtureuser'),
    ]);
    expect(
      await api.call('POST', '/credits/payments', {
        txHash: fromElsewhere.txhash,
        amount: { denom: 'uixo', amount: '3000' },
      }),
    ).toMatchObject({ status: 422, body: { code: 'payment_mismatch', mismatch: ['sender'] } });
    const fromOwn = await broadcastSends(app.ctx.chainGrpcUrl, [
      pay(FIXTURE_PAY_TO_ADDRESS, uixo('3000'), account),
    ]);
    expect(
      await api.call('POST', '/credits/payments', {
        txHash: fromOwn.txhash,
        amount: { denom: 'uixo', amount: '3000' },
      }),
    ).toMatchObject({ status: 200, body: { balance: 3 } });
  });

  // Issue 36, finding 1: a did:key user names no account, so the sender was not checked and whoever reported a
  // public payment first was credited for it; the real payer then got 409.
  it("another user's payment cannot be taken: 422 payment_mismatch ['memo'], nothing credited, the payer is credited after", async () => {
    const payer = await brokeUser();
    const thief = await brokeUser();
    const tx = await broadcastSends(
      app.ctx.chainGrpcUrl,
      [pay(FIXTURE_PAY_TO_ADDRESS, uixo('5000'), 'ixo1payerswallet')],
      payer.memo,
    );
    const report = { txHash: tx.txhash, amount: { denom: 'uixo', amount: '5000' } };
    expect(await thief.api.call('POST', '/credits/payments', report)).toMatchObject({
      status: 422,
      body: {
        code: 'payment_mismatch',
        statusCode: 422,
        mismatch: ['memo'],
        message: `The transaction does not pay what was reported: its memo does not contain your payment reference ${thief.memo}.`,
      },
    });
    expect((await thief.api.call('GET', '/credits')).body).toMatchObject({
      balance: 0,
      outstandingClaims: thief.claims,
      paymentMemo: thief.memo,
    });
    expect(await payer.api.call('POST', '/credits/payments', report)).toMatchObject({
      status: 200,
      body: { balance: 5, settledClaims: payer.claims },
    });
  });

  it("a payment with no memo is nobody's for a did:key user", async () => {
    const { api, claims } = await brokeUser();
    const tx = await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('5000'))]);
    expect(
      await api.call('POST', '/credits/payments', {
        txHash: tx.txhash,
        amount: { denom: 'uixo', amount: '5000' },
      }),
    ).toMatchObject({ status: 422, body: { code: 'payment_mismatch', mismatch: ['memo'] } });
    expect((await api.call('GET', '/credits')).body).toMatchObject({ balance: 0, outstandingClaims: claims });
  });

  it('the payment reference is the same on every call and differs between users', async () => {
    const a = await brokeUser();
    const b = await brokeUser();
    expect(a.memo).not.toBe(b.memo);
    expect((await a.api.call('GET', '/credits')).body.paymentMemo).toBe(a.memo);
    expect((await a.api.call('GET', '/credits')).body.paymentMemo).toBe(a.memo);
  });

  it('a did:ixo user is also credited for a payment from elsewhere that carries their reference', async () => {
    // The fixture user is the same in every test of this file: their balance is whatever the others left.
    const api = oracleApi(app.url, await newUser(app.oracleDid, await fixtureUser()));
    const before = (await api.call('GET', '/credits')).body as { balance: number; paymentMemo: string };
    const tx = await broadcastSends(
      app.ctx.chainGrpcUrl,
      [pay(FIXTURE_PAY_TO_ADDRESS, uixo('2000'), 'ixo1afriendswallet')],
      before.paymentMemo,
    );
    expect(
      await api.call('POST', '/credits/payments', {
        txHash: tx.txhash,
        amount: { denom: 'uixo', amount: '2000' },
      }),
    ).toMatchObject({ status: 200, body: { balance: before.balance + 2 } });
  });

  it('a hash that is not 64 hex digits is a 400', async () => {
    const { api } = await brokeUser();
    const r = await api.call('POST', '/credits/payments', {
      txHash: 'abcd',
      amount: { denom: 'uixo', amount: '1' },
    });
    expect(r).toMatchObject({ status: 400, body: { code: 'bad_request' } });
  });
});

describe('migration 0008-payment-memos', () => {
  it('gives every account made before it a payment reference of its own, kept after', async () => {
    await using db = await openTestDb();
    const raw = db.kysely as unknown as Kysely<unknown>;
    await memoMigration.down(raw);
    // The table as it was before the migration: no payment_memo column.
    await (
      db.kysely as unknown as Kysely<{
        credit_accounts: { oracle_did: string; user_did: string; balance: number };
      }>
    )
      .insertInto('credit_accounts')
      .values([
        { oracle_did: 'did:key:zOracle', user_did: 'did:key:zA', balance: 3 },
        { oracle_did: 'did:key:zOracle', user_did: 'did:key:zB', balance: 0 },
      ])
      .execute();
    await memoMigration.up(raw);
    const ledger = new CreditsLedger(db.kysely, 'did:key:zOracle', 0);
    const a = await ledger.account('did:key:zA');
    const b = await ledger.account('did:key:zB');
    expect(a).toEqual({ balance: 3, paymentMemo: expect.stringMatching(/^pay_[0-9a-f]{32}$/) });
    expect(b.paymentMemo).toMatch(/^pay_[0-9a-f]{32}$/);
    expect(a.paymentMemo).not.toBe(b.paymentMemo);
    expect(await ledger.account('did:key:zA')).toEqual(a);
  });
});
