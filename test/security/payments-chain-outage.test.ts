// A payment reported while the chain node does not answer: a documented 503 the client may retry, nothing
// credited or written, never a 500 (it was one: grpc-js's UNAVAILABLE was not recognised as an outage).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/private-redis.js';
import { newUser, oracleApi } from '../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../helpers/oracle/oracle-app.js';

let app: OracleApp;

beforeAll(async () => {
  // A chain node address where nothing listens (a port taken and released).
  app = await startOracleApp({
    env: {
      ORACLE_FEATURES: 'credits',
      CREDITS_INITIAL_BALANCE: '0',
      CREDITS_PRICE_PER_TURN: '1',
      CHAIN_GRPC_URL: `127.0.0.1:${await freePort()}`,
      CHAIN_GRPC_TIMEOUT_MS: '1000',
    },
  });
});
afterAll(() => app.close());

describe('a payment while the chain node is unreachable', () => {
  it('answers 503 unavailable (retry later) and credits nothing', async () => {
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const report = { txHash: 'AB'.repeat(32), amount: { denom: 'uixo', amount: '5000' } };
    const answer = await api.call('POST', '/credits/payments', report);
    expect(answer).toMatchObject({
      status: 503,
      body: {
        code: 'unavailable',
        statusCode: 503,
        message: 'The chain node did not answer, so the payment could not be verified yet; retry shortly.',
      },
    });
    expect((await api.call('GET', '/credits')).body).toMatchObject({ balance: 0 });
    // The same report once the chain answers is not refused as a replay: nothing was recorded.
    expect((await api.call('POST', '/credits/payments', report)).status).toBe(503);
  });
});
