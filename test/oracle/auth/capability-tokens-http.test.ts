import { Verifier } from '@ucanto/principal';
import { ed25519 } from '@ucanto/principal';
import type { Signer } from '@ucanto/interface';
import { capability, claim, ok, Schema } from '@ucanto/validator';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORACLE_CAPABILITIES } from '../../../contracts/oracle.js';
import { mintToken } from '../../../server/oracle/auth/mint.js';
import { oracleCanIssue } from '../../../server/oracle/auth/token-verifier.js';
import { FIXTURE_USER_DID, fixtureUser } from '../../helpers/oracle/fixture-user.js';
import { newUser, oracleApi, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';

let app: OracleApp;
let alice: OracleUser;
let sessionId: string;

beforeAll(async () => {
  app = await startOracleApp();
  alice = await newUser(app.oracleDid);
  sessionId = (await oracleApi(app.url, alice).createSession()).sessionId;
});
afterAll(() => app.close());

type Did = `did:${string}:${string}`;
type Cap = [{ can: `${string}/${string}`; with: Did }];
const use = (oracle: string): Cap => [{ can: ORACLE_CAPABILITIES.invocation.can, with: oracle as Did }];
const act = (user: string): Cap => [{ can: ORACLE_CAPABILITIES.delegation.can, with: user as Did }];

/** Headers presenting an invocation and a delegation (either may be left out). */
function headers(invocation?: string, delegation?: string): Record<string, string> {
  return {
    ...(invocation === undefined ? {} : { authorization: `Bearer ${invocation}`, 'x-auth-type': 'ucan' }),
    ...(delegation === undefined ? {} : { 'x-ucan-delegation': delegation }),
  };
}

interface Case {
  name: string;
  code: string;
  /** HTTP headers, and the same tokens for the socket handshake (undefined: the HTTP case only). */
  make(): Promise<{
    http: Record<string, string>;
    socket?: { invocation?: string; ucanDelegation?: string };
  }>;
}

async function forgedCases(): Promise<Case[]> {
  const oracle = app.oracleDid as Did;
  const user = alice.signer;
  const mallory = await ed25519.generate();
  const tokens = (invocation?: string, delegation?: string) => ({
    http: headers(invocation, delegation),
    socket: { ...(invocation ? { invocation } : {}), ...(delegation ? { ucanDelegation: delegation } : {}) },
  });
  const valid = (ttl = 600) =>
    mintToken({ issuer: user, audience: oracle, ttlSeconds: ttl, capabilities: use(oracle) });
  return [
    { name: 'no token at all', code: 'auth_missing', make: () => Promise.resolve(tokens()) },
    {
      name: 'a delegation that is not base64 of a CAR',
      code: 'auth_malformed',
      make: () => Promise.resolve(tokens(undefined, 'not-a-token!')),
    },
    {
      name: 'base64 of random bytes',
      code: 'auth_malformed',
      make: () => Promise.resolve(tokens(Buffer.from('hello world, not a car').toString('base64'))),
    },
    {
      name: 'an Authorization header that is not Bearer',
      code: 'auth_malformed',
      make: async () => ({ http: { authorization: `Basic ${(await valid()).serialized}` } }),
    },
    {
      name: 'X-Auth-Type other than ucan',
      code: 'auth_malformed',
      make: async () => ({
        http: { authorization: `Bearer ${(await valid()).serialized}`, 'x-auth-type': 'jwt' },
      }),
    },
    {
      name: 'signed by another key than its issuer',
      code: 'auth_bad_signature',
      make: async () =>
        tokens(
          (
            await mintToken({
              issuer: mallory.withDID(user.did()),
              audience: oracle,
              ttlSeconds: 600,
              capabilities: use(oracle),
            })
          ).serialized,
        ),
    },
    {
      name: 'addressed to another audience',
      code: 'auth_wrong_audience',
      make: async () =>
        tokens(
          (
            await mintToken({
              issuer: user,
              audience: mallory.did(),
              ttlSeconds: 600,
              capabilities: use(oracle),
            })
          ).serialized,
        ),
    },
    { name: 'expired', code: 'auth_expired', make: async () => tokens((await valid(-5)).serialized) },
    {
      name: 'not yet valid',
      code: 'auth_not_yet_valid',
      make: async () =>
        tokens(
          (
            await mintToken({
              issuer: user,
              audience: oracle,
              ttlSeconds: 600,
              notBeforeSeconds: 300,
              capabilities: use(oracle),
            })
          ).serialized,
        ),
    },
    {
      name: 'an invocation granting oracle/act instead of oracle/use',
      code: 'auth_wrong_capability',
      make: async () =>
        tokens(
          (await mintToken({ issuer: user, audience: oracle, ttlSeconds: 600, capabilities: act(oracle) }))
            .serialized,
        ),
    },
    {
      name: "a delegation of oracle/act on someone else's DID",
      code: 'auth_wrong_capability',
      make: async () =>
        tokens(
          undefined,
          (
            await mintToken({
              issuer: user,
              audience: oracle,
              ttlSeconds: 600,
              capabilities: act(mallory.did()),
            })
          ).serialized,
        ),
    },
    {
      name: 'an invocation and a delegation of two different users',
      code: 'auth_issuer_mismatch',
      make: async () =>
        tokens(
          (await valid()).serialized,
          (
            await mintToken({
              issuer: mallory,
              audience: oracle,
              ttlSeconds: 600,
              capabilities: act(mallory.did()),
            })
          ).serialized,
        ),
    },
    {
      name: 'a did:ixo issuer the chain does not know',
      code: 'auth_unknown_issuer',
      make: async () => {
        const ghost = mallory.withDID('did:ixo:ixo1nobodyhere') as unknown as Signer;
        return tokens(
          (await mintToken({ issuer: ghost, audience: oracle, ttlSeconds: 600, capabilities: use(oracle) }))
            .serialized,
        );
      },
    },
    {
      name: 'a did:ixo issuer signing with a key that is not in its IID document',
      code: 'auth_bad_signature',
      make: async () => {
        const impostor = mallory.withDID(FIXTURE_USER_DID) as unknown as Signer;
        return tokens(
          (
            await mintToken({
              issuer: impostor,
              audience: oracle,
              ttlSeconds: 600,
              capabilities: use(oracle),
            })
          ).serialized,
        );
      },
    },
  ];
}

describe('capability tokens over HTTP', () => {
  it('refuses every forged, expired or mismatched token with 401 and its own code, never echoing it', async () => {
    for (const c of await forgedCases()) {
      const { http } = await c.make();
      const response = await fetch(`${app.url}/sessions`, { headers: http });
      const text = await response.text();
      expect({ case: c.name, status: response.status }).toEqual({ case: c.name, status: 401 });
      const body = JSON.parse(text) as Record<string, unknown>;
      expect({ case: c.name, body }).toEqual({
        case: c.name,
        body: { code: c.code, message: expect.any(String), statusCode: 401, requestId: expect.any(String) },
      });
      for (const value of Object.values(http)) {
        const token = value.replace(/^\w+ /, '');
        if (token.length > 20) expect(text).not.toContain(token.slice(0, 40));
      }
      expect(text).not.toMatch(/at .*\.(ts|js):\d+/);
    }
  });

  it('accepts the invocation alone, the delegation alone, and both together', async () => {
    for (const h of [
      headers(alice.invocation.serialized),
      headers(undefined, alice.delegation.serialized),
      alice.headers,
    ]) {
      expect((await fetch(`${app.url}/sessions`, { headers: h })).status).toBe(200);
    }
  });

  it('accepts tokens addressed to the oracle entity DID as well as to its own DID', async () => {
    const entity = 'did:ixo:entity:oracle7d1e3c9a2b';
    const invocation = await mintToken({
      issuer: alice.signer,
      audience: entity,
      ttlSeconds: 60,
      capabilities: use(entity),
    });
    expect((await fetch(`${app.url}/sessions`, { headers: headers(invocation.serialized) })).status).toBe(
      200,
    );
  });

  it('verifies a did:ixo issuer through the chain IID query (the fixture user with an Ed25519 key)', async () => {
    const ixo = await newUser(app.oracleDid, await fixtureUser());
    expect(ixo.did).toBe(FIXTURE_USER_DID);
    const api = oracleApi(app.url, ixo);
    const session = await api.createSession();
    expect(
      (await api.call('GET', '/sessions')).body.sessions.map((s: { sessionId: string }) => s.sessionId),
    ).toContain(session.sessionId);
  });

  it('leaves /config, /models, /health and / public', async () => {
    for (const path of ['/config', '/models', '/health', '/']) {
      expect({ path, status: (await fetch(`${app.url}${path}`)).status }).toEqual({ path, status: 200 });
    }
  });
});

describe('canIssue', () => {
  it("lets any user issue oracle/use on this oracle, which ucanto's default (self-issued only) refuses", async () => {
    const oracle = app.oracleDid as Did;
    const audiences = new Set([oracle]);
    const canIssue = oracleCanIssue(audiences);
    expect(canIssue({ can: 'oracle/use', with: oracle }, alice.did)).toBe(true);
    expect(canIssue({ can: 'oracle/use', with: 'did:key:z6Mkother' }, alice.did)).toBe(false);
    expect(canIssue({ can: 'oracle/act', with: oracle }, alice.did)).toBe(false);
    expect(canIssue({ can: 'oracle/act', with: alice.did }, alice.did)).toBe(true);

    const { Delegation } = await import('@ucanto/core');
    const token = (await Delegation.extract(Buffer.from(alice.invocation.serialized, 'base64'))).ok;
    if (!token) throw new Error('token did not decode');
    const parser = capability({ can: 'oracle/use', with: Schema.did() });
    const authority = await ed25519.generate();
    const base = { authority, principal: Verifier, validateAuthorization: () => ok({}) };
    expect((await claim(parser, [token], base)).error?.name).toBe('Unauthorized');
    expect((await claim(parser, [token], { ...base, canIssue })).ok).toBeDefined();
  });
});

describe('capability tokens on the socket handshake', () => {
  const open = (auth: Record<string, string>, query: Record<string, string>): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect(app.url, {
        transports: ['websocket'],
        auth,
        query,
        reconnection: false,
        timeout: 5000,
      });
      socket.once('connect', () => resolve(socket));
      socket.once('connect_error', (err) => {
        socket.close();
        reject(err);
      });
    });

  it('refuses every forged token in the handshake with connect_error and the same code', async () => {
    for (const c of await forgedCases()) {
      const { socket } = await c.make();
      if (!socket) continue;
      const err = (await open(socket, { sessionId, userDid: alice.did }).then(
        (s) => {
          s.close();
          return new Error('connected');
        },
        (e: unknown) => e,
      )) as Error & { data?: { code?: string } };
      expect({ case: c.name, code: err.data?.code }).toEqual({ case: c.name, code: c.code });
    }
  });

  it('accepts valid tokens, joins the session room and says connected', async () => {
    const socket = await open(
      { invocation: alice.invocation.serialized, ucanDelegation: alice.delegation.serialized },
      { sessionId, userDid: alice.did },
    );
    try {
      expect(socket.connected).toBe(true);
    } finally {
      socket.close();
    }
    const delegationOnly = await open(
      { ucanDelegation: alice.delegation.serialized },
      { sessionId, userDid: alice.did },
    );
    delegationOnly.close();
  });

  it('refuses a userDid that is not the token issuer, and a session of another user', async () => {
    const bob = await newUser(app.oracleDid);
    const auth = { ucanDelegation: alice.delegation.serialized };
    await expect(open(auth, { sessionId, userDid: bob.did })).rejects.toMatchObject({
      data: { code: 'auth_issuer_mismatch' },
    });
    await expect(
      open({ ucanDelegation: bob.delegation.serialized }, { sessionId, userDid: bob.did }),
    ).rejects.toMatchObject({
      data: { code: 'session_not_found' },
    });
    await expect(open(auth, { userDid: alice.did })).rejects.toMatchObject({ data: { code: 'bad_request' } });
  });
});
