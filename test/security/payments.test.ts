// Payments verified on the chain (POST /credits/payments): only a successful transaction that sends at least the
// reported amount, in CREDITS_DENOM, to payTo (from the caller's account when the caller's DID names one) is
// credited, once. Unknown, failed, mismatched and replayed transactions are refused and write nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PAY_TO_ADDRESS } from '../../server/oracle/plugins/credits/index.js';
import { broadcastSends, type Send } from '../helpers/chain-tx.js';
import { FIXTURE_USER_DID, fixtureUser } from '../oracle/helpers/fixture-user.js';
import { newUser, oracleApi } from '../oracle/helpers/oracle-client.js';
import { startOracleApp, type OracleApp } from '../oracle/helpers/oracle-app.js';

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
  return { user, api, claims: refused.body.outstandingClaims as string[] };
}

describe('payments are verified on the chain', () => {
  it('credits what a successful transaction sent to payTo, settles the claims, once', async () => {
    const { api, claims } = await brokeUser();
    const tx = await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('7000'))]);
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
    const { api } = await brokeUser();
    const tx = await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('4000'))]);
    const report = { txHash: tx.txhash, amount: { denom: 'uixo', amount: '4000' } };
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => api.call('POST', '/credits/payments', report)),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await api.call('GET', '/credits')).body.balance).toBe(4);
  });

  it('a transaction another user reported first: 409 payment_conflict, nothing credited', async () => {
    const tx = await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('2000'))]);
    const report = { txHash: tx.txhash, amount: { denom: 'uixo', amount: '2000' } };
    const first = await brokeUser();
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
    () => Promise<{ txHash: string; amount: { denom: string; amount: string } }>,
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
      async () => ({
        txHash: (
          await broadcastSends(app.ctx.chainGrpcUrl, [
            pay(FIXTURE_PAY_TO_ADDRESS, uixo('99000000000'), 'ixo1spender'),
          ])
        ).txhash,
        amount: { denom: 'uixo', amount: '99000000000' },
      }),
      422,
      { code: 'payment_failed', message: expect.stringContaining('code 5') },
    ],
    [
      'a transaction to another account',
      async () => ({
        txHash: (await broadcastSends(app.ctx.chainGrpcUrl, [pay('ixo1someoneelse', uixo('5000'))])).txhash,
        amount: { denom: 'uixo', amount: '5000' },
      }),
      422,
      { code: 'payment_mismatch', mismatch: ['recipient'] },
    ],
    [
      'a transaction in another denom',
      async () => ({
        txHash: (
          await broadcastSends(app.ctx.chainGrpcUrl, [
            pay(FIXTURE_PAY_TO_ADDRESS, [{ denom: 'uatom', amount: '5000' }]),
          ])
        ).txhash,
        amount: { denom: 'uixo', amount: '5000' },
      }),
      422,
      { code: 'payment_mismatch', mismatch: ['denom'] },
    ],
    [
      'a report in another denom than CREDITS_DENOM',
      async () => ({
        txHash: (await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('5000'))]))
          .txhash,
        amount: { denom: 'uatom', amount: '5000' },
      }),
      422,
      { code: 'payment_mismatch', mismatch: ['denom'] },
    ],
    [
      'a report of more than the transaction sent',
      async () => ({
        txHash: (await broadcastSends(app.ctx.chainGrpcUrl, [pay(FIXTURE_PAY_TO_ADDRESS, uixo('5000'))]))
          .txhash,
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
    const { api, claims } = await brokeUser();
    const answer = await api.call('POST', '/credits/payments', await report());
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

  it('a hash that is not 64 hex digits is a 400', async () => {
    const { api } = await brokeUser();
    const r = await api.call('POST', '/credits/payments', {
      txHash: 'abcd',
      amount: { denom: 'uixo', amount: '1' },
    });
    expect(r).toMatchObject({ status: 400, body: { code: 'bad_request' } });
  });
});
