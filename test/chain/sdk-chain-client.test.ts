import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createChainClient, type ChainPathShape } from '../../sdk/src/chain-client.js';
import type { Claim, Entity } from '../../contracts/chain-schemas.js';
import { startFixtureNode, type FixtureNode } from '../../server/chain/fixture-node/fixture-node.js';
import { startGateway, TEST_PUBLIC_BASE_URL, type Gateway } from '../helpers/chain/gateway-harness.js';

const ORACLE = 'did:ixo:entity:oracle7d1e3c9a2b';
const MINTER = 'did:ixo:entity:2f5a5c0a9e1c4b3d8f7e6a5b4c3d2e1f';

// One node behind three gateways: both shapes (a normal deployment), current only (a v4+ node) and legacy
// only (a claims v0.20–v3 / token v0.20 node).
let node: FixtureNode;
let both: Gateway;
let currentOnly: Gateway;
let legacyOnly: Gateway;
beforeAll(async () => {
  node = await startFixtureNode({ publicBaseUrl: TEST_PUBLIC_BASE_URL });
  [both, currentOnly, legacyOnly] = await Promise.all([
    startGateway({ node }),
    startGateway({ node, shapes: ['current'] }),
    startGateway({ node, shapes: ['legacy'] }),
  ]);
});
afterAll(async () => {
  await Promise.all([both.close(), currentOnly.close(), legacyOnly.close()]);
  await node.close();
});

describe('typed chain client', () => {
  it('returns typed bodies per status', async () => {
    const chain = createChainClient({ baseUrl: both.url, shapeMemory: new Map() });
    const res = await chain.entity.entity({ params: { id: ORACLE } });
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    expectTypeOf(res.body.entity).toEqualTypeOf<Entity>();
    expect(res.body.iidDocument.service.map((s) => s.type)).toEqual(['oracleService', 'wsService']);

    const missing = await chain.entity.entity({ params: { id: 'did:ixo:entity:none' } });
    expect(missing.status).toBe(404);
    if (missing.status === 404)
      expect(missing.body).toEqual({ code: 5, message: 'entity did:ixo:entity:none not found', details: [] });
  });

  it('validates responses against the contract when asked', async () => {
    const chain = createChainClient({ baseUrl: both.url, validateResponse: true, shapeMemory: new Map() });
    const claims = await chain.claims.claimList({ query: { 'pagination.limit': '30' } });
    expect(claims.status).toBe(200);
    if (claims.status === 200) expectTypeOf(claims.body.claims).toEqualTypeOf<Claim[]>();
    const collection = await chain.claims.collection({ params: { id: '1' } });
    expect(collection.status).toBe(200);
  });

  it('percent-encodes path parameters but keeps DID colons readable', async () => {
    const chain = createChainClient({ baseUrl: both.url, shapeMemory: new Map() });
    await chain.entity.entityVerified({ params: { id: ORACLE } });
    expect(both.requests.at(-1)).toBe(`GET /ixo/entity/${ORACLE}/verified`);
    const res = await chain.iid.iidDocument({ params: { id: 'a/b?c#d' } });
    expect(both.requests.at(-1)).toBe('GET /ixo/did/dids/a%2Fb%3Fc%23d');
    expect(res.body).toEqual({ code: 5, message: 'did document a/b?c#d not found', details: [] });
  });

  it('sends flat dotted pagination keys, so next_key round-trips', async () => {
    const chain = createChainClient({ baseUrl: both.url, shapeMemory: new Map() });
    const first = await chain.claims.claimList({ query: { 'pagination.limit': '20' } });
    if (first.status !== 200) throw new Error(`status ${first.status}`);
    const key = first.body.pagination?.next_key;
    expect(key).toBeTypeOf('string');
    const second = await chain.claims.claimList({ query: { 'pagination.key': key ?? '' } });
    if (second.status !== 200) throw new Error(`status ${second.status}`);
    expect(second.body.claims.map((c) => c.claim_id)).toEqual([
      'claim-0021',
      'claim-0022',
      'claim-0023',
      'claim-0024',
      'claim-0025',
    ]);
  });

  it('uses the current shape on a current deployment and remembers it', async () => {
    const memory = new Map<string, ChainPathShape>();
    const chain = createChainClient({ baseUrl: currentOnly.url, shapeMemory: memory });
    const before = currentOnly.requests.length;
    expect((await chain.claims.claimList()).status).toBe(200);
    expect(currentOnly.requests.slice(before)).toEqual(['GET /ixo/claims/claims']);
    expect(chain.shape('claims')).toBe('current');
  });

  it('falls back to the legacy shape on an old deployment, once, then goes there directly', async () => {
    const memory = new Map<string, ChainPathShape>();
    const chain = createChainClient({ baseUrl: legacyOnly.url, shapeMemory: memory });
    const before = legacyOnly.requests.length;
    const first = await chain.claims.claim({ params: { id: 'claim-0007' } });
    expect(first.status).toBe(200);
    if (first.status === 200) expect(first.body.claim.claim_id).toBe('claim-0007');
    expect(legacyOnly.requests.slice(before)).toEqual([
      'GET /ixo/claims/claim/claim-0007',
      'GET /ixo/claim/claim-0007',
    ]);
    expect(chain.shape('claims')).toBe('legacy');

    const mark = legacyOnly.requests.length;
    expect((await chain.claims.collectionList()).status).toBe(200);
    expect((await chain.claims.collection({ params: { id: '2' } })).status).toBe(200);
    expect(legacyOnly.requests.slice(mark)).toEqual(['GET /ixo/collection', 'GET /ixo/collection/2']);

    // A second client for the same deployment starts on the remembered shape.
    const again = createChainClient({ baseUrl: legacyOnly.url, shapeMemory: memory });
    const mark2 = legacyOnly.requests.length;
    expect((await again.claims.claimList()).status).toBe(200);
    expect(legacyOnly.requests.slice(mark2)).toEqual(['GET /ixo/claim']);
  });

  it('finds the legacy token shape even though the old node routes the new path to TokenDoc (404)', async () => {
    const chain = createChainClient({ baseUrl: legacyOnly.url, shapeMemory: new Map() });
    const res = await chain.token.tokenList({ params: { minter: MINTER } });
    expect(res.status).toBe(200);
    if (res.status === 200) expect(res.body.tokenDocs.map((t) => t.name)).toEqual(['CARBON', 'WATER']);
    expect(chain.shape('token')).toBe('legacy');
    expect(chain.shape('claims')).toBeUndefined();
  });

  it('remembers shapes per base URL', async () => {
    const memory = new Map<string, ChainPathShape>();
    const oldOne = createChainClient({ baseUrl: legacyOnly.url, shapeMemory: memory });
    const newOne = createChainClient({ baseUrl: currentOnly.url, shapeMemory: memory });
    expect((await oldOne.claims.claimList()).status).toBe(200);
    expect((await newOne.claims.claimList()).status).toBe(200);
    expect(oldOne.shape('claims')).toBe('legacy');
    expect(newOne.shape('claims')).toBe('current');
  });

  it('does not retry a NotFound once the shape is known', async () => {
    const chain = createChainClient({ baseUrl: currentOnly.url, shapeMemory: new Map() });
    expect((await chain.claims.claim({ params: { id: 'claim-0001' } })).status).toBe(200);
    const mark = currentOnly.requests.length;
    const res = await chain.claims.claim({ params: { id: 'claim-9999' } });
    expect(res.status).toBe(404);
    expect(currentOnly.requests.slice(mark)).toEqual(['GET /ixo/claims/claim/claim-9999']);
  });

  it('returns the answer of the shape that exists when neither succeeds', async () => {
    const chain = createChainClient({ baseUrl: legacyOnly.url, shapeMemory: new Map() });
    const res = await chain.claims.claim({ params: { id: 'claim-9999' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 5, message: 'claim claim-9999 not found', details: [] });
  });

  it('talks to a deployment with another prefix and gated REST', async () => {
    await using gw = await startGateway({
      node,
      config: { CHAIN_ROUTE_PREFIX: 'impacthub', CHAIN_REST_TOKEN: 'tok' },
    });
    const chain = createChainClient({
      baseUrl: `${gw.url}/`,
      prefix: 'impacthub',
      headers: { authorization: 'Bearer tok' },
      shapeMemory: new Map(),
    });
    const res = await chain.token.params();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ params: { ixo1155_contract_code: '42' } });
    expect(gw.requests.at(-1)).toBe('GET /impacthub/token/params');
  });
});
