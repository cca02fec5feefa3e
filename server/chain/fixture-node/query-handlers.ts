import { status as Status } from '@grpc/grpc-js';
import type { MethodName } from '../../../generated/proto/chain-descriptor.js';
import type * as Claims from '../../../generated/proto/ixo/claims/v1beta1/query.js';
import type * as Entity from '../../../generated/proto/ixo/entity/v1beta1/query.js';
import type * as Iid from '../../../generated/proto/ixo/iid/v1beta1/query.js';
import type * as Token from '../../../generated/proto/ixo/token/v1beta1/query.js';
import { ChainError } from '../chain-error.js';
import type { FixtureData } from './fixture-data.js';
import { paginate } from './paginate.js';

/** Message of the InvalidArgument the keepers answer for an empty id. */
export const INVALID_REQUEST_MESSAGE = 'invalid request';

/** One query method of the fixture node: a request message in, a response message out (or a ChainError). */
export type QueryHandler = (request: never) => unknown;

const requireId = (id: string): string => {
  if (id === '') throw new ChainError(Status.INVALID_ARGUMENT, INVALID_REQUEST_MESSAGE);
  return id;
};

const found = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new ChainError(Status.NOT_FOUND, `${what} not found`);
  return value;
};

/**
 * Keeper-like behaviour of every query method over fixture data: an empty id is InvalidArgument
 * "invalid request", an unknown one NotFound "<kind> <id> not found", and lists page like the SDK.
 */
export function queryHandlers(data: FixtureData): Record<MethodName, QueryHandler> {
  const entity = (id: string) => found(data.entities.get(requireId(id)), `entity ${id}`);
  return {
    'ixo.entity.v1beta1.Query/Params': (): Entity.QueryParamsResponse => ({ params: data.entityParams }),
    'ixo.entity.v1beta1.Query/Entity': (r: Entity.QueryEntityRequest): Entity.QueryEntityResponse =>
      entity(r.id),
    'ixo.entity.v1beta1.Query/EntityMetaData': (
      r: Entity.QueryEntityMetadataRequest,
    ): Entity.QueryEntityMetadataResponse => ({ entity: entity(r.id).entity }),
    'ixo.entity.v1beta1.Query/EntityIidDocument': (
      r: Entity.QueryEntityIidDocumentRequest,
    ): Entity.QueryEntityIidDocumentResponse => ({ iidDocument: entity(r.id).iidDocument }),
    'ixo.entity.v1beta1.Query/EntityVerified': (
      r: Entity.QueryEntityVerifiedRequest,
    ): Entity.QueryEntityVerifiedResponse => ({ entity_verified: entity(r.id).entity.entity_verified }),
    'ixo.entity.v1beta1.Query/EntityList': (
      r: Entity.QueryEntityListRequest,
    ): Entity.QueryEntityListResponse => {
      const page = paginate(data.entities, r.pagination);
      return { entities: page.items.map((e) => e.entity), pagination: page.pagination };
    },

    'ixo.iid.v1beta1.Query/IidDocument': (r: Iid.QueryIidDocumentRequest): Iid.QueryIidDocumentResponse => ({
      iidDocument: found(data.iidDocuments.get(requireId(r.id)), `did document ${r.id}`),
    }),
    'ixo.iid.v1beta1.Query/IidDocuments': (
      r: Iid.QueryIidDocumentsRequest,
    ): Iid.QueryIidDocumentsResponse => {
      const page = paginate(data.iidDocuments, r.pagination);
      return { iidDocuments: page.items, pagination: page.pagination };
    },

    'ixo.claims.v1beta1.Query/Params': (): Claims.QueryParamsResponse => ({ params: data.claimsParams }),
    'ixo.claims.v1beta1.Query/Collection': (
      r: Claims.QueryCollectionRequest,
    ): Claims.QueryCollectionResponse => ({
      collection: found(data.collections.get(requireId(r.id)), `collection ${r.id}`),
    }),
    'ixo.claims.v1beta1.Query/CollectionList': (
      r: Claims.QueryCollectionListRequest,
    ): Claims.QueryCollectionListResponse => {
      const page = paginate(data.collections, r.pagination);
      return { collections: page.items, pagination: page.pagination };
    },
    'ixo.claims.v1beta1.Query/Claim': (r: Claims.QueryClaimRequest): Claims.QueryClaimResponse => ({
      claim: found(data.claims.get(requireId(r.id)), `claim ${r.id}`),
    }),
    'ixo.claims.v1beta1.Query/ClaimList': (
      r: Claims.QueryClaimListRequest,
    ): Claims.QueryClaimListResponse => {
      const page = paginate(data.claims, r.pagination);
      return { claims: page.items, pagination: page.pagination };
    },

    'ixo.token.v1beta1.Query/Params': (): Token.QueryParamsResponse => ({ params: data.tokenParams }),
    'ixo.token.v1beta1.Query/TokenMetadata': (
      r: Token.QueryTokenMetadataRequest,
    ): Token.QueryTokenMetadataResponse =>
      found(data.tokenMetadata.get(requireId(r.id)), `token metadata ${r.id}`),
    'ixo.token.v1beta1.Query/TokenList': (r: Token.QueryTokenListRequest): Token.QueryTokenListResponse => {
      const minter = requireId(r.minter);
      const own = new Map([...data.tokens].filter(([, t]) => t.minter === minter));
      const page = paginate(own, r.pagination);
      return { pagination: page.pagination, tokenDocs: page.items };
    },
    'ixo.token.v1beta1.Query/TokenDoc': (r: Token.QueryTokenDocRequest): Token.QueryTokenDocResponse => ({
      tokenDoc: found(
        data.tokens.get(`${requireId(r.minter)}/${requireId(r.contract_address)}`),
        `token ${r.minter}/${r.contract_address}`,
      ),
    }),
  };
}
