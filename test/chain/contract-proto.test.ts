import { describe, expect, it } from 'vitest';
import { CHAIN_DEFAULT_PREFIX } from '../../contracts/chain.js';
import { MESSAGES, METHODS } from '../../generated/proto/chain-descriptor.js';
import { GRPC_METHODS } from '../../server/chain-node/grpc-methods.js';
import { chainRouteTable } from '../../server/chain/route-table.js';

// The contract's routes, the .proto files' google.api.http rules and the generated code must agree.
const table = chainRouteTable();
const toExpress = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

describe('contracts/chain.ts agrees with contracts/proto', () => {
  it('serves every query method on its current path, and legacy routes on its additional bindings', () => {
    const fromProto = METHODS.flatMap((m) => [
      `current ${m.method} ${toExpress(m.get)}`,
      ...m.additionalGets.map((g) => `legacy ${m.method} ${toExpress(g)}`),
    ]).sort();
    const fromContract = table.map((b) => `${b.shape} ${b.grpc.name} ${b.route.path}`).sort();
    expect(fromContract).toEqual(fromProto);
  });

  it('names, for each path parameter, a field of the request message', () => {
    for (const b of table) {
      const params = [...b.route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      const input = b.grpc.input;
      const fields = (MESSAGES[input] ?? []).map((f) => f.name);
      expect(fields, b.key).toEqual(expect.arrayContaining(params));
      const query = (b.route as { query?: unknown }).query !== undefined;
      expect(query, `${b.key} has a pagination query exactly when its request has pagination`).toBe(
        fields.includes('pagination'),
      );
    }
  });

  it('puts every route under the default prefix', () => {
    for (const b of table) expect(b.route.path.startsWith(`/${CHAIN_DEFAULT_PREFIX}/`)).toBe(true);
  });

  it('uses the operationIds of the chain Swagger document, unique', () => {
    const ids = table.map((b) => (b.route.metadata as { operationId: string }).operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !id.startsWith('Legacy')).sort()).toEqual(
      [
        'Entity',
        'EntityList',
        'EntityMetaData',
        'EntityIidDocument',
        'EntityVerified',
        'IXOEntityParams',
        'Claim',
        'ClaimList',
        'Collection',
        'CollectionList',
        'IXOClaimsParams',
        'TokenMetadata',
        'TokenList',
        'TokenDoc',
        'IXOTokenParams',
        'IidDocuments',
        'IidDocument',
      ].sort(),
    );
  });

  it('orders literal segments before parameters, so /token/params is not taken for a minter', () => {
    const suffixes = table.map((b) => b.suffix);
    expect(suffixes.indexOf('/token/params')).toBeLessThan(suffixes.indexOf('/token/:minter'));
    expect(suffixes.indexOf('/entity/params')).toBeLessThan(suffixes.indexOf('/entity/:id'));
    expect(suffixes.indexOf('/token/minter/:minter')).toBeLessThan(
      suffixes.indexOf('/token/:minter/:contract_address'),
    );
  });

  it('has the gRPC method paths of the chain (package, service Query, rpc names)', () => {
    expect([...GRPC_METHODS.values()].map((m) => m.definition.path).sort()).toEqual([
      '/ixo.claims.v1beta1.Query/Claim',
      '/ixo.claims.v1beta1.Query/ClaimList',
      '/ixo.claims.v1beta1.Query/Collection',
      '/ixo.claims.v1beta1.Query/CollectionList',
      '/ixo.claims.v1beta1.Query/Params',
      '/ixo.entity.v1beta1.Query/Entity',
      '/ixo.entity.v1beta1.Query/EntityIidDocument',
      '/ixo.entity.v1beta1.Query/EntityList',
      '/ixo.entity.v1beta1.Query/EntityMetaData',
      '/ixo.entity.v1beta1.Query/EntityVerified',
      '/ixo.entity.v1beta1.Query/Params',
      '/ixo.iid.v1beta1.Query/IidDocument',
      '/ixo.iid.v1beta1.Query/IidDocuments',
      '/ixo.token.v1beta1.Query/Params',
      '/ixo.token.v1beta1.Query/TokenDoc',
      '/ixo.token.v1beta1.Query/TokenList',
      '/ixo.token.v1beta1.Query/TokenMetadata',
    ]);
  });
});
