import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreditsAccount } from '../../../contracts/credits.js';
import { Memory } from '../../../contracts/memory.js';
import { OracleError } from '../../../contracts/errors.js';
import { broadcastSends } from '../../helpers/chain-tx.js';
import { FIXTURE_PAY_TO_ADDRESS } from '../../../server/oracle/plugins/credits/index.js';
import { oraclePart } from '../../../server/oracle/part.js';
import { definePlugin } from '../../../server/oracle/runtime/plugin.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';

describe('memory plugin (features.memory)', () => {
  let app: OracleApp;
  beforeAll(async () => {
    app = await startOracleApp({ env: { ORACLE_FEATURES: 'memory' } });
  });
  afterAll(() => app.close());

  it('remembers, lists (newest first, searchable), and forgets facts per user over HTTP', async () => {
    const alice = oracleApi(app.url, await newUser(app.oracleDid));
    const bob = oracleApi(app.url, await newUser(app.oracleDid));
    const first = await alice.call('POST', '/memory', {
      content: 'Works as a nurse at the district hospital',
      tags: ['work'],
    });
    expect(first.status).toBe(201);
    expect(Memory.parse(first.body)).toMatchObject({
      content: 'Works as a nurse at the district hospital',
      tags: ['work'],
    });
    await alice.call('POST', '/memory', { content: 'Has two children' });
    const all = await alice.call('GET', '/memory');
    expect(all.body.total).toBe(2);
    expect(all.body.memories.map((m: Memory) => m.content)).toEqual([
      'Has two children',
      'Works as a nurse at the district hospital',
    ]);
    expect((await alice.call('GET', '/memory?q=district nurse')).body.total).toBe(1);
    expect((await alice.call('GET', '/memory?q=work')).body.memories[0].tags).toEqual(['work']);
    expect((await bob.call('GET', '/memory')).body).toEqual({ memories: [], total: 0 });
    expect((await bob.call('DELETE', `/memory/${first.body.id}`)).status).toBe(404);
    expect((await alice.call('DELETE', `/memory/${first.body.id}`)).status).toBe(200);
    expect((await alice.call('GET', '/memory')).body.total).toBe(1);
    const bad = await alice.call('POST', '/memory', { content: '' });
    expect(bad.status).toBe(400);
    expect(OracleError.safeParse(bad.body).success).toBe(true);
  });

  it('gives the model remember_fact and recall_facts', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const session = await api.createSession();
    await api.stream(session.sessionId, {
      message: 'use remember_fact with {"content": "Prefers morning meetings"}',
    });
    const { events } = await api.stream(session.sessionId, {
      message: 'use recall_facts with query=morning',
    });
    const done = events.find(
      (e) => e.event === 'tool_call' && (e.data as { status: string }).status === 'done',
    );
    expect(String((done?.data as { output: string }).output)).toContain('Prefers morning meetings');
    expect((await api.call('GET', '/memory')).body.total).toBe(1);
  });

  it('is off by default: no routes', async () => {
    await using plain = await startOracleApp();
    const u = await newUser(plain.oracleDid);
    expect((await fetch(`${plain.url}/memory`, { headers: u.headers })).status).toBe(404);
  });
});

describe('credits plugin (ORACLE_FEATURES=credits)', () => {
  let app: OracleApp;
  beforeAll(async () => {
    app = await startOracleApp({
      env: { ORACLE_FEATURES: 'credits', CREDITS_INITIAL_BALANCE: '2', CREDITS_PRICE_PER_TURN: '1' },
    });
  });
  afterAll(() => app.close());

  it('debits each turn, streamed or not; an empty balance answers 402 with the recorded claims before any stream', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const config = (await (await fetch(`${app.url}/config`)).json()) as { price: unknown };
    expect(config.price).toEqual({ amount: 1, denom: 'credits', per: 'turn' });
    const session = await api.createSession();
    expect((await api.call('POST', `/messages/${session.sessionId}`, { message: 'one' })).status).toBe(200);
    expect((await api.stream(session.sessionId, { message: 'two' })).response.status).toBe(200);
    const refused = await api.stream(session.sessionId, { message: 'three' });
    expect(refused.response.status).toBe(402);
    expect(refused.response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = OracleError.parse(await refused.response.json());
    expect(body).toMatchObject({
      code: 'payment_required',
      message: 'Your credits do not cover this turn (1 credits). Pay to continue.',
      statusCode: 402,
      outstandingClaims: [expect.stringMatching(/^claim_/)],
    });
    // Trying again does not pile up claims; the account shows them.
    const again = await api.call('POST', `/messages/${session.sessionId}`, { message: 'four' });
    expect(again.body.outstandingClaims).toEqual(body.outstandingClaims);
    const account = CreditsAccount.parse((await api.call('GET', '/credits')).body);
    expect(account).toMatchObject({
      balance: 0,
      outstandingClaims: body.outstandingClaims,
      payTo: { denom: 'uixo', creditsPerUnit: 0.001 },
    });
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages.filter((m: { type: string }) => m.type === 'human')).toHaveLength(2);
  });

  it('a payment found on chain credits the balance and settles the claims, once per transaction', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const session = await api.createSession();
    await api.call('POST', `/messages/${session.sessionId}`, { message: 'a' });
    await api.call('POST', `/messages/${session.sessionId}`, { message: 'b' });
    const refused = await api.call('POST', `/messages/${session.sessionId}`, { message: 'c' });
    const claims = refused.body.outstandingClaims as string[];
    const tx = await broadcastSends(
      app.ctx.chainGrpcUrl,
      [{ from: 'ixo1payer', to: FIXTURE_PAY_TO_ADDRESS, amount: [{ denom: 'uixo', amount: '5000' }] }],
      refused.body.paymentMemo as string,
    );
    expect(tx.code).toBe(0);
    const payment = { txHash: tx.txhash, amount: { denom: 'uixo', amount: '5000' } };
    const paid = await api.call('POST', '/credits/payments', payment);
    expect(paid).toMatchObject({ status: 200, body: { balance: 5, settledClaims: claims } });
    expect(await api.call('POST', '/credits/payments', payment)).toMatchObject({
      status: 200,
      body: { balance: 5, settledClaims: claims },
    });
    expect((await api.call('GET', '/credits')).body).toMatchObject({ balance: 5, outstandingClaims: [] });
    expect((await api.call('POST', `/messages/${session.sessionId}`, { message: 'd' })).status).toBe(200);
    const other = oracleApi(app.url, await newUser(app.oracleDid));
    expect(await other.call('POST', '/credits/payments', payment)).toMatchObject({
      status: 409,
      body: { code: 'payment_conflict', statusCode: 409 },
    });
    expect((await other.call('GET', '/credits')).body.balance).toBe(2);
  });

  it('a plugin that depends on credits is switched off with it', async () => {
    const dependent = definePlugin({
      manifest: {
        name: 'claim-processing',
        title: 'Claim processing',
        summary: 'Depends on credits.',
        visibility: 'silent',
        stability: 'experimental',
        category: 'automation',
        defaultOn: true,
        dependsOn: ['credits'],
        requiredEnv: [],
      },
    });
    await using off = await startOracleApp({ parts: { oracle: oraclePart({ extraPlugins: [dependent] }) } });
    const health = (await (await fetch(`${off.url}/health`)).json()) as { plugins: unknown[] };
    expect(health.plugins).toContainEqual({
      name: 'credits',
      state: 'disabled',
      reason: expect.stringContaining('off by default'),
    });
    expect(health.plugins).toContainEqual({
      name: 'claim-processing',
      state: 'disabled',
      reason: 'switched off because credits is off',
    });
    await using on = await startOracleApp({
      env: { ORACLE_FEATURES: 'credits' },
      parts: { oracle: oraclePart({ extraPlugins: [dependent] }) },
    });
    const onHealth = (await (await fetch(`${on.url}/health`)).json()) as { plugins: unknown[] };
    expect(onHealth.plugins).toContainEqual({ name: 'claim-processing', state: 'ready' });
  });
});
