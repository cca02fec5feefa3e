// Forged, expired and wrong-audience capability tokens (and none) on every authenticated route of the agent
// service and its plugins: 401 with the reason's code, before anything is read or written.
import { ed25519 } from '@ucanto/principal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORACLE_CAPABILITIES } from '../../contracts/oracle.js';
import { mintToken } from '../../server/oracle/auth/mint.js';
import { newUser, oracleApi, type OracleUser } from '../oracle/helpers/oracle-client.js';
import { startOracleApp, type OracleApp } from '../oracle/helpers/oracle-app.js';
import { isAuthenticated, ORACLE_ROUTES, requestFor, type Ids, type RouteKey } from './routes.js';

type Did = `did:${string}:${string}`;

let app: OracleApp;
let alice: OracleUser;
let ids: Ids;
const bad: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  app = await startOracleApp({ env: { ORACLE_FEATURES: 'memory,credits' } });
  alice = await newUser(app.oracleDid);
  const api = oracleApi(app.url, alice);
  const room = (await api.call('POST', '/rooms', {})).body as { roomId: string };
  const session = await api.createSession();
  const memory = (await api.call('POST', '/memory', { content: 'A fact.' })).body as { id: string };
  ids = {
    sessionId: session.sessionId,
    runId: 'run_x',
    roomId: room.roomId,
    memberDid: alice.did,
    memoryId: memory.id,
  };
  const oracle = app.oracleDid as Did;
  const mallory = await ed25519.generate();
  const use = [{ can: ORACLE_CAPABILITIES.invocation.can, with: oracle }] as [
    { can: `${string}/${string}`; with: Did },
  ];
  const bearer = (serialized: string) => ({ authorization: `Bearer ${serialized}`, 'x-auth-type': 'ucan' });
  bad['auth_missing'] = {};
  bad['auth_bad_signature'] = bearer(
    (
      await mintToken({
        issuer: mallory.withDID(alice.did as Did),
        audience: oracle,
        ttlSeconds: 600,
        capabilities: use,
      })
    ).serialized,
  );
  bad['auth_expired'] = bearer(
    (await mintToken({ issuer: alice.signer, audience: oracle, ttlSeconds: -5, capabilities: use }))
      .serialized,
  );
  bad['auth_wrong_audience'] = bearer(
    (await mintToken({ issuer: alice.signer, audience: mallory.did(), ttlSeconds: 600, capabilities: use }))
      .serialized,
  );
  bad['auth_malformed'] = bearer('bm90IGEgdG9rZW4=');
});
afterAll(() => app.close());

const authenticated = (Object.keys(ORACLE_ROUTES) as RouteKey[]).filter(isAuthenticated);

describe('bad tokens on every authenticated route', () => {
  it('covers the routes that need a token (all but /config and /models)', () => {
    expect(authenticated).not.toContain('oracle.config');
    expect(authenticated.length).toBe(Object.keys(ORACLE_ROUTES).length - 2);
  });

  it.each(authenticated)('%s: 401 with the reason, nothing written', async (key) => {
    const req = requestFor(key, ids);
    for (const [code, headers] of Object.entries(bad)) {
      const response = await fetch(`${app.url}${req.path}`, {
        method: req.method,
        headers: { ...headers, ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
      });
      const body = (await response.json()) as Record<string, unknown>;
      expect({ key, code, status: response.status, body: body['code'] }).toEqual({
        key,
        code,
        status: 401,
        body: code,
      });
    }
    const api = oracleApi(app.url, alice);
    expect((await api.call('GET', `/messages/${ids.sessionId}`)).body.messages).toEqual([]);
    expect((await api.call('GET', `/rooms/${ids.roomId}`)).body.members).toHaveLength(1);
    expect((await api.call('GET', '/memory')).body.total).toBe(1);
    expect((await api.call('GET', '/sessions')).body.total).toBe(1);
  });
});
