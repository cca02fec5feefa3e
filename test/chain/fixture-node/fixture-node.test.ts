import { credentials, Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  QueryClient as ClaimsClient,
  type QueryParamsResponse as ClaimsParamsResponse,
} from '../../../generated/proto/ixo/claims/v1beta1/query.js';
import {
  QueryClient as EntityClient,
  type QueryEntityMetadataResponse,
} from '../../../generated/proto/ixo/entity/v1beta1/query.js';
import {
  QueryClient as TokenClient,
  type QueryParamsResponse as TokenParamsResponse,
  type QueryTokenListResponse,
} from '../../../generated/proto/ixo/token/v1beta1/query.js';
import { startFixtureNode, type FixtureNode } from '../../../server/chain/fixture-node/fixture-node.js';
import { INVALID_REQUEST_MESSAGE } from '../../../server/chain/fixture-node/query-handlers.js';
import { TEST_PUBLIC_BASE_URL } from '../../helpers/chain/gateway-harness.js';

// The fixture node spoken to directly with the generated grpc-js clients, as any chain client would.
let node: FixtureNode;
let entity: EntityClient;
let claims: ClaimsClient;
let token: TokenClient;
beforeAll(async () => {
  node = await startFixtureNode({ publicBaseUrl: TEST_PUBLIC_BASE_URL });
  entity = new EntityClient(node.address, credentials.createInsecure());
  claims = new ClaimsClient(node.address, credentials.createInsecure());
  token = new TokenClient(node.address, credentials.createInsecure());
});
afterAll(async () => {
  entity.close();
  claims.close();
  token.close();
  await node.close();
});

/** Calls a callback-style unary method and settles with its response or ServiceError. */
function unary<Req, Res>(
  fn: (req: Req, md: Metadata, cb: (err: ServiceError | null, res?: Res) => void) => unknown,
  req: Req,
  md = new Metadata(),
): Promise<Res> {
  return new Promise((resolve, reject) =>
    fn(req, md, (err, res) => (err ? reject(err) : resolve(res as Res))),
  );
}

describe('fixture node: keeper-like answers over real gRPC', () => {
  it('Entity: empty id → InvalidArgument "invalid request"; unknown id → NotFound', async () => {
    await expect(unary(entity.entity.bind(entity), { id: '' })).rejects.toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: INVALID_REQUEST_MESSAGE,
    });
    await expect(unary(entity.entity.bind(entity), { id: 'did:ixo:entity:none' })).rejects.toMatchObject({
      code: Status.NOT_FOUND,
      details: 'entity did:ixo:entity:none not found',
    });
  });

  it('Entity: decodes into the generated types; timestamps keep their nanos', async () => {
    const res: QueryEntityMetadataResponse = await unary(entity.entityMetaData.bind(entity), {
      id: 'did:ixo:entity:2f5a5c0a9e1c4b3d8f7e6a5b4c3d2e1f',
    });
    expect(res.entity?.metadata?.updated).toEqual({ seconds: '1709634030', nanos: 123456789 });
    expect(res.entity?.status).toBe(1);
  });

  it('claims Params: cosmos.Dec travels as the 10^18-scaled integer, like a Go node sends it', async () => {
    const res: ClaimsParamsResponse = await unary(claims.params.bind(claims), {});
    expect(res.params?.network_fee_percentage).toBe('100000000000000000');
    expect(res.params?.node_fee_percentage).toBe('50000000000000000');
  });

  it('answers x-cosmos-block-height in the response headers', async () => {
    const header = await new Promise<Metadata>((resolve, reject) => {
      const call = token.params({}, (err) => err && reject(err));
      call.on('metadata', resolve);
    });
    expect(header.get('x-cosmos-block-height')).toEqual(['1204511']);
  });

  it('failNext applies to the named method only, once', async () => {
    node.failNext(Status.RESOURCE_EXHAUSTED, 'slow down', 'ixo.claims.v1beta1.Query/Claim');
    // Another method is answered as usual, with its fixture data (fixtures/chain/token.yaml), and does not
    // use up the trap.
    const params: TokenParamsResponse = await unary(token.params.bind(token), {});
    expect(params).toEqual({ params: { ixo1155_contract_code: '42' } });
    await expect(unary(claims.claim.bind(claims), { id: 'claim-0001' })).rejects.toMatchObject({
      code: Status.RESOURCE_EXHAUSTED,
      details: 'slow down',
    });
    await expect(unary(claims.claim.bind(claims), { id: 'claim-0001' })).resolves.toMatchObject({
      claim: { claim_id: 'claim-0001' },
    });
  });

  it('stallNext delays the answer', async () => {
    node.stallNext(150);
    const started = Date.now();
    await unary(token.params.bind(token), {});
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('TokenList and TokenDoc by minter', async () => {
    const list: QueryTokenListResponse = await unary(token.tokenList.bind(token), {
      minter: 'did:ixo:entity:relayer0a1b2c3d4e',
      pagination: undefined,
    });
    expect(list.tokenDocs.map((t) => t.name)).toEqual(['RELAY']);
    await expect(
      unary(token.tokenDoc.bind(token), {
        minter: 'did:ixo:entity:relayer0a1b2c3d4e',
        contract_address: 'nope',
      }),
    ).rejects.toMatchObject({ code: Status.NOT_FOUND });
  });
});
