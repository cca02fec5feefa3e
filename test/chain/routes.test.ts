import type { AppRoute } from '@ts-rest/core';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainContract } from '../../contracts/chain.js';
import { expectExactShape } from '../helpers/chain/exact-shape.js';
import { startGateway, TEST_PUBLIC_BASE_URL, type Gateway } from '../helpers/chain/gateway-harness.js';

const ORACLE = 'did:ixo:entity:oracle7d1e3c9a2b';
const PROJECT = 'did:ixo:entity:2f5a5c0a9e1c4b3d8f7e6a5b4c3d2e1f';
const PROTOCOL = 'did:ixo:entity:7c4e2a91b0d34f5e8a6c1d2e3f4a5b6c';
const MINTER = PROJECT;
const CARBON = 'ixo1cw1155credits7y6t5r4e3w2q1a0s9d8f';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const ok = async (route: AppRoute, path: string): Promise<Record<string, unknown>> => {
  const res = await gw.request.get(path);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expectExactShape(route.responses[200] as z.ZodTypeAny, res.body);
  return res.body as Record<string, unknown>;
};

describe('every chain route answers from the node over gRPC, in Cosmos REST JSON', () => {
  // One request per contract route; each body must have exactly the contract's keys at every level.
  const cases: [AppRoute, string][] = [
    [chainContract.entity.params, '/ixo/entity/params'],
    [chainContract.entity.entity, `/ixo/entity/${ORACLE}`],
    [chainContract.entity.entityMetaData, `/ixo/entity/${PROJECT}/metadata`],
    [chainContract.entity.entityIidDocument, `/ixo/entity/${PROJECT}/iiddocument`],
    [chainContract.entity.entityVerified, `/ixo/entity/${PROTOCOL}/verified`],
    [chainContract.entity.entityList, '/ixo/entity'],
    [chainContract.claims.params, '/ixo/claims/params'],
    [chainContract.claims.collection, '/ixo/claims/collection/1'],
    [chainContract.claims.collectionList, '/ixo/claims/collections'],
    [chainContract.claims.claim, '/ixo/claims/claim/claim-0005'],
    [chainContract.claims.claimList, '/ixo/claims/claims'],
    [chainContract.token.params, '/ixo/token/params'],
    [chainContract.token.tokenMetadata, '/ixo/token/metadata/CARBON:bafkreicarbon0005'],
    [chainContract.token.tokenList, `/ixo/token/minter/${MINTER}`],
    [chainContract.token.tokenDoc, `/ixo/token/minter/${MINTER}/${CARBON}`],
    [chainContract.iid.iidDocuments, '/ixo/did/dids'],
    [chainContract.iid.iidDocument, `/ixo/did/dids/${ORACLE}`],
    [chainContract.legacy.claim, '/ixo/claim/claim-0005'],
    [chainContract.legacy.claimList, '/ixo/claim'],
    [chainContract.legacy.collection, '/ixo/collection/1'],
    [chainContract.legacy.collectionList, '/ixo/collection'],
    [chainContract.legacy.tokenList, `/ixo/token/${MINTER}`],
    [chainContract.legacy.tokenDoc, `/ixo/token/${MINTER}/${CARBON}`],
  ];
  it.each(cases)('%#: GET %s', async (route, path) => {
    await ok(route, path);
  });

  it('covers every route of the contract', () => {
    const all = Object.values(chainContract).flatMap((r) => Object.values(r) as AppRoute[]);
    expect(new Set(cases.map(([route]) => route))).toEqual(new Set(all));
  });
});

describe('entity', () => {
  it('Params: uint64 as string, camelCase proto names kept', async () => {
    const body = await ok(chainContract.entity.params, '/ixo/entity/params');
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        params: {
          nftContractAddress: 'ixo14hj2tavq8fpesdwxxcu44rty3hh90vhujrvcmstl4zr3txmfvw9sqa3vn7',
          nftContractMinter: 'ixo1g6mrh3pkg0fdztgdazq5u3qzjl7xzyl3e5pntq',
          createSequence: '4',
        },
      }),
    );
  });

  it('Entity by a DID with colons: snake_case keys in proto order, null for unset timestamps', async () => {
    const body = await ok(chainContract.entity.entity, `/ixo/entity/${ORACLE}`);
    expect(JSON.stringify(body['entity'])).toBe(
      JSON.stringify({
        id: ORACLE,
        type: 'oracle',
        start_date: '2024-01-02T03:04:05Z',
        end_date: null,
        status: 0,
        relayer_node: 'did:ixo:entity:relayer0a1b2c3d4e',
        credentials: [],
        entity_verified: true,
        metadata: { version_id: '1', created: '2024-01-02T03:04:05Z', updated: '2024-06-30T12:00:00.123Z' },
        accounts: [{ name: 'admin', address: 'ixo1oracleadmin7d1e3c9a2bqqqqqqqqqqqqqqqq3xk2v' }],
      }),
    );
  });

  it("Entity: the oracle's IID document advertises this server's oracle API", async () => {
    const body = await ok(chainContract.entity.entity, `/ixo/entity/${ORACLE}`);
    const doc = body['iidDocument'] as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual([
      'context',
      'id',
      'controller',
      'verificationMethod',
      'service',
      'authentication',
      'assertionMethod',
      'keyAgreement',
      'capabilityInvocation',
      'capabilityDelegation',
      'linkedResource',
      'linkedClaim',
      'accordedRight',
      'linkedEntity',
      'alsoKnownAs',
      'metadata',
    ]);
    expect(doc['service']).toEqual([
      { id: `${ORACLE}#api`, type: 'oracleService', serviceEndpoint: TEST_PUBLIC_BASE_URL },
      { id: `${ORACLE}#ws`, type: 'wsService', serviceEndpoint: TEST_PUBLIC_BASE_URL },
    ]);
    expect(doc['verificationMethod']).toEqual([
      {
        id: `${ORACLE}#key-1`,
        type: 'EcdsaSecp256k1VerificationKey2019',
        controller: ORACLE,
        publicKeyMultibase: 'zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme',
      },
    ]);
    expect(doc['context']).toEqual([{ key: 'ixo', val: 'https://w3id.org/ixo/context/v1' }]);
  });

  it('EntityMetaData keeps nanosecond precision of timestamps', async () => {
    const body = await ok(chainContract.entity.entityMetaData, `/ixo/entity/${PROJECT}/metadata`);
    expect(body).toMatchObject({
      entity: { id: PROJECT, status: 1, metadata: { updated: '2024-03-05T10:20:30.123456789Z' } },
    });
  });

  it('EntityIidDocument and EntityVerified', async () => {
    const doc = await ok(chainContract.entity.entityIidDocument, `/ixo/entity/${PROJECT}/iiddocument`);
    expect(doc).toMatchObject({ iidDocument: { id: PROJECT, alsoKnownAs: 'Clean cookstoves, Nakuru' } });
    expect(await ok(chainContract.entity.entityVerified, `/ixo/entity/${PROTOCOL}/verified`)).toEqual({
      entity_verified: false,
    });
    expect(await ok(chainContract.entity.entityVerified, `/ixo/entity/${ORACLE}/verified`)).toEqual({
      entity_verified: true,
    });
  });

  it('EntityList: all entities in key order, total counted when no limit is given', async () => {
    const body = await ok(chainContract.entity.entityList, '/ixo/entity');
    expect((body['entities'] as { id: string }[]).map((e) => e.id)).toEqual([
      PROJECT,
      PROTOCOL,
      ORACLE,
      'did:ixo:entity:relayer0a1b2c3d4e',
    ]);
    expect(body['pagination']).toEqual({ next_key: null, total: '4' });
  });
});

describe('claims', () => {
  it('Params: decimals as 18-digit strings, uint64 as strings', async () => {
    expect(JSON.stringify(await ok(chainContract.claims.params, '/ixo/claims/params'))).toBe(
      JSON.stringify({
        params: {
          collection_sequence: '4',
          ixo_account: 'ixo1kqmtxkggcqa9u34lnr6shy0euvclgatw4f9zz5',
          network_fee_percentage: '0.100000000000000000',
          node_fee_percentage: '0.050000000000000000',
          intent_sequence: '7',
        },
      }),
    );
  });

  it('Collection with defaults: zero counters "0", enum names, empty lists, null payments, "0s"', async () => {
    const body = await ok(chainContract.claims.collection, '/ixo/claims/collection/2');
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        collection: {
          id: '2',
          entity: PROJECT,
          admin: 'ixo1projectadmin2f5a5c0a9e1cqqqqqqqqqqqqq8k4ds',
          protocol: PROTOCOL,
          start_date: '2024-06-01T00:00:00Z',
          end_date: null,
          quota: '50',
          count: '3',
          evaluated: '3',
          approved: '3',
          rejected: '0',
          disputed: '0',
          state: 'PAUSED',
          payments: null,
          signer: 'ixo1projectadmin2f5a5c0a9e1cqqqqqqqqqqqqq8k4ds',
          invalidated: '0',
          escrow_account: 'ixo1escrow2f5a5c0a9e1cqqqqqqqqqqqqqqqqqqqqqq9d3ar',
          intents: 'REQUIRED',
          flagged: '0',
          flagged_active: '0',
          service_agent_deposit_required: [],
          evaluator_deposit_required: [],
          dispute_deposit_amount: [],
          penalty_amount_per_dispute: [],
          disputes_open: '0',
          disputes_awarded: '0',
          disputes_dismissed: '0',
          min_deposit_period: '0s',
          adjudicators: [],
        },
      }),
    );
  });

  it('Collection payments: durations, coins, CW20 amounts and adjudicator decimals', async () => {
    const body = await ok(chainContract.claims.collection, '/ixo/claims/collection/1');
    expect(body).toMatchObject({
      collection: {
        state: 'OPEN',
        intents: 'ALLOW',
        min_deposit_period: '86400s',
        adjudicators: [
          { did: 'did:ixo:entity:relayer0a1b2c3d4e', reward_percentage: '0.250000000000000000' },
        ],
        payments: {
          evaluation: {
            timeout_ns: '3600s',
            is_oracle_payment: true,
            amount: [{ denom: 'uixo', amount: '5000000' }],
          },
          approval: {
            timeout_ns: '1.500s',
            contract_1155_payment: null,
            cw20_payment: [{ address: 'ixo1cw20carboncontract9z8y7x6w5v4u3t2s1r0q', amount: '150' }],
          },
        },
      },
    });
  });

  it('Claim: evaluation status and payment statuses as names, intent payments', async () => {
    const body = await ok(chainContract.claims.claim, '/ixo/claims/claim/claim-0005');
    expect(body).toMatchObject({
      claim: {
        claim_id: 'claim-0005',
        collection_id: '1',
        use_intent: true,
        evaluation: { status: 'APPROVED', reason: 0, oracle: ORACLE },
        payments_status: {
          submission: 'NO_PAYMENT',
          evaluation: 'PAID',
          approval: 'PAID',
          rejection: 'NO_PAYMENT',
        },
        cw1155_intent_payment: [
          {
            address: 'ixo1cw1155credits7y6t5r4e3w2q1a0s9d8f',
            tokens: [{ token_id: 'CARBON:bafkreicarbon0005', amount: '3' }],
          },
        ],
      },
    });
    const pending = await ok(chainContract.claims.claim, '/ixo/claims/claim/claim-0004');
    expect(pending).toMatchObject({
      claim: { evaluation: null, payments_status: { evaluation: 'NO_PAYMENT' } },
    });
    const flagged = await ok(chainContract.claims.claim, '/ixo/claims/claim/claim-0010');
    expect(flagged).toMatchObject({ claim: { evaluation: { status: 'FLAGGED', reason: 2 } } });
  });

  it('ClaimList and CollectionList without pagination: everything, with the total', async () => {
    const claims = await ok(chainContract.claims.claimList, '/ixo/claims/claims');
    expect((claims['claims'] as unknown[]).length).toBe(25);
    expect(claims['pagination']).toEqual({ next_key: null, total: '25' });
    const collections = await ok(chainContract.claims.collectionList, '/ixo/claims/collections');
    expect((collections['collections'] as { id: string }[]).map((c) => c.id)).toEqual(['1', '2', '3']);
  });
});

describe('token', () => {
  it('Params', async () => {
    expect(await ok(chainContract.token.params, '/ixo/token/params')).toEqual({
      params: { ixo1155_contract_code: '42' },
    });
  });

  it('TokenMetadata: all six fields, properties with linked resources', async () => {
    const body = await ok(chainContract.token.tokenMetadata, '/ixo/token/metadata/WATER:bafkreiwater0001');
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        name: 'WATER',
        description: 'Litres of clean water delivered, batch 1',
        decimals: '0',
        image: '',
        index: 'bafkreiwater0001',
        properties: null,
      }),
    );
  });

  it('TokenList of one minter and TokenDoc; big math.Uint values stay exact strings', async () => {
    const list = await ok(chainContract.token.tokenList, `/ixo/token/minter/${MINTER}`);
    expect(Object.keys(list)).toEqual(['pagination', 'tokenDocs']);
    expect((list['tokenDocs'] as { name: string }[]).map((t) => t.name)).toEqual(['CARBON', 'WATER']);
    const doc = await ok(
      chainContract.token.tokenDoc,
      '/ixo/token/minter/did:ixo:entity:relayer0a1b2c3d4e/ixo1cw1155relayer5t6y7u8i9o0p1a2s3d4f5g',
    );
    expect(doc).toMatchObject({
      tokenDoc: { cap: '18446744073709551616000', supply: '1', stopped: true, paused: false },
    });
  });
});

describe('iid', () => {
  it('IidDocuments lists entity and non-entity DID documents; IidDocument by DID', async () => {
    const list = await ok(chainContract.iid.iidDocuments, '/ixo/did/dids');
    expect((list['iidDocuments'] as unknown[]).length).toBe(6);
    const agent = 'did:ixo:ixo1agent4x9k2m7q3w8e5r6t0y1u2i3o4p5a6s';
    const doc = await ok(chainContract.iid.iidDocument, `/ixo/did/dids/${agent}`);
    expect(doc).toMatchObject({
      iidDocument: {
        id: agent,
        verificationMethod: [{ publicKeyBase58: '7Lnm1ZkL6kqYzAU2UhLxN7bVz9vLz3WFbvTDXg2c8bAf' }],
      },
    });
  });
});

describe('legacy path shapes answer like the current ones', () => {
  it.each([
    ['/ixo/claim', '/ixo/claims/claims'],
    ['/ixo/claim/claim-0003', '/ixo/claims/claim/claim-0003'],
    ['/ixo/collection', '/ixo/claims/collections'],
    ['/ixo/collection/1', '/ixo/claims/collection/1'],
    [`/ixo/token/${MINTER}`, `/ixo/token/minter/${MINTER}`],
    [`/ixo/token/${MINTER}/${CARBON}`, `/ixo/token/minter/${MINTER}/${CARBON}`],
  ])('%s = %s', async (legacy, current) => {
    const [a, b] = await Promise.all([gw.request.get(legacy), gw.request.get(current)]);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
  });
});
