import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ORACLE_CAPABILITIES } from '../../../contracts/oracle.js';
import { mintToken } from '../../../server/oracle/auth/mint.js';
import { newUser, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';

// Regression test for issue 26: a verified token kept in the verifier's cache past its own expiry. The
// "expired token" tests of capability-tokens-http.test.ts only use tokens that were never cached; here each token is first
// accepted (and so cached), then presented again after it expired.

let app: OracleApp;
let user: OracleUser;

beforeAll(async () => {
  app = await startOracleApp();
  user = await newUser(app.oracleDid);
});
afterAll(() => app.close());
afterEach(() => vi.useRealTimers());

type Did = `did:${string}:${string}`;

async function listSessions(headers: Record<string, string>): Promise<{ status: number; code?: string }> {
  const response = await fetch(`${app.url}/sessions`, { headers });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, ...(body.code === undefined ? {} : { code: body.code }) };
}

describe('a cached token is refused once it expires', () => {
  it.each(['invocation', 'delegation'] as const)(
    'a cached %s used after its expiry → 401 auth_expired',
    async (kind) => {
      const short = await mintToken({
        issuer: user.signer,
        audience: app.oracleDid as Did,
        ttlSeconds: 3,
        capabilities: [
          kind === 'invocation'
            ? { can: ORACLE_CAPABILITIES.invocation.can, with: app.oracleDid as Did }
            : { can: ORACLE_CAPABILITIES.delegation.can, with: user.did as Did },
        ],
      });
      const headers =
        kind === 'invocation'
          ? { ...user.headers, authorization: `Bearer ${short.serialized}` }
          : { ...user.headers, 'x-ucan-delegation': short.serialized };
      expect(await listSessions(headers)).toEqual({ status: 200 });
      // Only the clock moves (timers stay real): one second past the token's expiry.
      vi.useFakeTimers({ toFake: ['Date'], now: short.expiresAt + 1000 });
      expect(await listSessions(headers)).toEqual({ status: 401, code: 'auth_expired' });
    },
  );
});
