// Type tests: the SDK's calls of the oracle are typed from contracts/, so a call that drifts does not compile.
import { describe, expectTypeOf, it } from 'vitest';
import { creditsContract } from '../../contracts/credits.js';
import { oracleContract, type TranscriptPage } from '../../contracts/oracle.js';
import type { TokenCache } from '../src/auth/token-cache.js';
import { OracleHttp } from '../src/http/oracle-http.js';

declare const tokens: TokenCache;
const http = new OracleHttp('http://oracle.test', 'did:ixo:entity:o', {
  userDid: 'did:key:u',
  tokens,
  withInvocation: false,
});

describe('contract-typed calls', () => {
  it('infers the answer from the route', () => {
    expectTypeOf(
      http.call(oracleContract.transcript, { params: { sessionId: 's' } }),
    ).resolves.toEqualTypeOf<TranscriptPage>();
    expectTypeOf(
      http.call(creditsContract.pay, { body: { txHash: 'ab', amount: { denom: 'uixo', amount: '1' } } }),
    ).resolves.toHaveProperty('settledClaims');
  });

  it('rejects wrong path parameters, queries and bodies', () => {
    // @ts-expect-error the transcript route's path parameter is sessionId
    void http.call(oracleContract.transcript, { params: { id: 's' } });
    // @ts-expect-error `page` is not a query parameter of the transcript route
    void http.call(oracleContract.transcript, { params: { sessionId: 's' }, query: { page: 2 } });
    // @ts-expect-error a message needs its text
    void http.open(oracleContract.send, { params: { sessionId: 's' }, body: { stream: true } });
    // @ts-expect-error the payment report's amount is a coin, not a number
    void http.call(creditsContract.pay, { body: { txHash: 'ab', amount: 5 } });
  });
});
