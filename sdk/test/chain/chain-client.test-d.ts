// Type tests of the typed chain client: calls that drift from contracts/chain.ts must not compile.
import { describe, expectTypeOf, it } from 'vitest';
import { createChainClient } from '../../src/chain-client.js';
import type { Collection, Entity } from '../../../contracts/chain-schemas.js';

const chain = createChainClient({ baseUrl: 'http://localhost:3000' });

describe('chain client types follow the contract', () => {
  it('types the 200 body per route (error statuses stay open: a proxy may answer anything)', async () => {
    const res = await chain.entity.entity({ params: { id: 'did:ixo:entity:abc' } });
    if (res.status === 200) expectTypeOf(res.body.entity).toEqualTypeOf<Entity>();
    const legacyCapable = await chain.claims.collection({ params: { id: '1' } });
    if (legacyCapable.status === 200) expectTypeOf(legacyCapable.body.collection).toEqualTypeOf<Collection>();
  });

  it('rejects wrong path parameters and unknown pagination keys', () => {
    // @ts-expect-error `entityId` is not a path parameter of entity.entity (it is `id`)
    void chain.entity.entity({ params: { entityId: 'x' } });
    // @ts-expect-error pagination is sent as flat dotted keys, not a nested object
    void chain.claims.claimList({ query: { pagination: { limit: '10' } } });
    // @ts-expect-error the legacy routes are not exposed; the client picks the shape itself
    void chain.legacy;
  });
});
