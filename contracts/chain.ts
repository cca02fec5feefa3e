import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  Claim,
  ClaimsParams,
  Collection,
  Entity,
  EntityParams,
  IidDocument,
  PageResponse,
  Token,
  TokenMetadataProperties,
  TokenParams,
} from './chain-schemas.js';

const c = initContract();

/**
 * The route prefix the contract's paths are written with. A deployment serves the same routes under
 * CHAIN_ROUTE_PREFIX (default `ixo`) and every CHAIN_LEGACY_PREFIXES alias: the server strips this prefix
 * from each path and mounts the route under each configured one, and the typed client rewrites it.
 */
export const CHAIN_DEFAULT_PREFIX = 'ixo';

/** Longest accepted path parameter (ids, DIDs, addresses); longer values answer 400 with code 3. */
export const CHAIN_PARAM_MAX = 256;

/**
 * The Cosmos gateway's error body (a marshalled `google.rpc.Status`), used for every error of the chain
 * routes, including unknown routes (`{"code":12,"message":"Not Implemented","details":[]}`).
 */
export const CosmosError = z.strictObject({
  /** The gRPC status code (3 InvalidArgument, 5 NotFound, 12 Unimplemented, …). */
  code: z.number().int().min(0).max(16),
  message: z.string(),
  details: z.array(z.unknown()),
});
export type CosmosError = z.infer<typeof CosmosError>;

/** Every HTTP status the gateway can answer besides 200 (the gRPC → HTTP table, plus gating). */
const errors = {
  400: CosmosError,
  401: CosmosError,
  403: CosmosError,
  404: CosmosError,
  408: CosmosError,
  409: CosmosError,
  429: CosmosError,
  500: CosmosError,
  501: CosmosError,
  503: CosmosError,
  504: CosmosError,
} as const;

/** A path parameter: an id, DID (colons allowed, e.g. `did:ixo:entity:abc`), address or minter. */
export const ChainParam = z
  .string()
  .min(1, 'must not be empty')
  .max(CHAIN_PARAM_MAX, `must be at most ${CHAIN_PARAM_MAX} characters`);

const U64_MAX = 18446744073709551615n;
const Uint64Query = z
  .string()
  .refine((v) => /^\d{1,20}$/.test(v) && BigInt(v) <= U64_MAX, 'must be an unsigned 64-bit integer');
/** The spellings Go's strconv.ParseBool accepts, as the Cosmos gateway does. */
const BoolQuery = z.enum(['true', 'false', 'True', 'False', 'TRUE', 'FALSE', 't', 'f', 'T', 'F', '1', '0'], {
  errorMap: () => ({ message: 'must be true or false' }),
});
/** Standard or URL-safe base64 (what the previous page's `next_key` holds); percent-encode `+ / =`. */
const Base64Query = z
  .string()
  .refine(
    (v) =>
      (/^[A-Za-z0-9+/]*={0,2}$/.test(v) || /^[A-Za-z0-9_-]*={0,2}$/.test(v)) &&
      (v.includes('=') ? v.length % 4 === 0 : v.length % 4 !== 1),
    'must be base64',
  );

/**
 * Cosmos pagination as flat dotted query keys (`pagination.limit=10`), as the gateway parses them; the
 * JSON spelling `pagination.countTotal` is accepted too. Send `next_key` back as `pagination.key`.
 */
export const PaginationQuery = z.object({
  'pagination.key': Base64Query.optional(),
  'pagination.offset': Uint64Query.optional(),
  'pagination.limit': Uint64Query.optional(),
  'pagination.count_total': BoolQuery.optional(),
  'pagination.countTotal': BoolQuery.optional(),
  'pagination.reverse': BoolQuery.optional(),
});
export type PaginationQuery = z.infer<typeof PaginationQuery>;

/** Headers the gateway understands on every chain route. */
export const ChainHeaders = z.object({
  /** Query state at this block height; forwarded to the node and echoed in the response. */
  'x-cosmos-block-height': z
    .string()
    .regex(/^\d{1,19}$/, 'must be a block height')
    .optional(),
  /** `Bearer <CHAIN_REST_TOKEN>` when the deployment gates REST. */
  authorization: z.string().optional(),
});

/**
 * Which generation of REST paths a route belongs to: `current` (`/ixo/claims/claims`) or `legacy` (the
 * older shape of the same query, `/ixo/claim`), served as an alias. Declared once here, for the contract,
 * the server's route table and the clients.
 */
export const CHAIN_PATH_SHAPES = ['current', 'legacy'] as const;
export type ChainPathShape = (typeof CHAIN_PATH_SHAPES)[number];

/** Route metadata: the Swagger operationId of the chain's own document and the gRPC method served. */
export interface ChainRouteMeta {
  operationId: string;
  grpcMethod: string;
  shape: ChainPathShape;
}
const current = (operationId: string, grpcMethod: string): ChainRouteMeta => ({
  operationId,
  grpcMethod,
  shape: 'current',
});
const legacy = (operationId: string, grpcMethod: string): ChainRouteMeta => ({
  operationId,
  grpcMethod,
  shape: 'legacy',
});

const id = z.object({ id: ChainParam });
const minter = z.object({ minter: ChainParam });
const minterAndContract = z.object({ minter: ChainParam, contract_address: ChainParam });

const EntityResponse = z.strictObject({ entity: Entity, iidDocument: IidDocument });
const ClaimResponse = z.strictObject({ claim: Claim });
const ClaimListResponse = z.strictObject({ claims: z.array(Claim), pagination: PageResponse.nullable() });
const CollectionResponse = z.strictObject({ collection: Collection });
const CollectionListResponse = z.strictObject({
  collections: z.array(Collection),
  pagination: PageResponse.nullable(),
});
const TokenListResponse = z.strictObject({ pagination: PageResponse.nullable(), tokenDocs: z.array(Token) });
const TokenDocResponse = z.strictObject({ tokenDoc: Token });

const entityRoutes = c.router({
  params: {
    method: 'GET',
    path: '/ixo/entity/params',
    summary: 'Entity module parameters',
    responses: { 200: z.strictObject({ params: EntityParams }), ...errors },
    metadata: current('IXOEntityParams', 'ixo.entity.v1beta1.Query/Params'),
  },
  entity: {
    method: 'GET',
    path: '/ixo/entity/:id',
    summary: 'One entity and its IID document, by DID',
    pathParams: id,
    responses: { 200: EntityResponse, ...errors },
    metadata: current('Entity', 'ixo.entity.v1beta1.Query/Entity'),
  },
  entityMetaData: {
    method: 'GET',
    path: '/ixo/entity/:id/metadata',
    summary: 'The entity record alone',
    pathParams: id,
    responses: { 200: z.strictObject({ entity: Entity }), ...errors },
    metadata: current('EntityMetaData', 'ixo.entity.v1beta1.Query/EntityMetaData'),
  },
  entityIidDocument: {
    method: 'GET',
    path: '/ixo/entity/:id/iiddocument',
    summary: 'The IID document of an entity',
    pathParams: id,
    responses: { 200: z.strictObject({ iidDocument: IidDocument }), ...errors },
    metadata: current('EntityIidDocument', 'ixo.entity.v1beta1.Query/EntityIidDocument'),
  },
  entityVerified: {
    method: 'GET',
    path: '/ixo/entity/:id/verified',
    summary: 'Whether an entity is verified',
    pathParams: id,
    responses: { 200: z.strictObject({ entity_verified: z.boolean() }), ...errors },
    metadata: current('EntityVerified', 'ixo.entity.v1beta1.Query/EntityVerified'),
  },
  entityList: {
    method: 'GET',
    path: '/ixo/entity',
    summary: 'All entities, paginated',
    query: PaginationQuery,
    responses: {
      200: z.strictObject({ entities: z.array(Entity), pagination: PageResponse.nullable() }),
      ...errors,
    },
    metadata: current('EntityList', 'ixo.entity.v1beta1.Query/EntityList'),
  },
});

const claimsRoutes = c.router({
  params: {
    method: 'GET',
    path: '/ixo/claims/params',
    summary: 'Claims module parameters',
    responses: { 200: z.strictObject({ params: ClaimsParams }), ...errors },
    metadata: current('IXOClaimsParams', 'ixo.claims.v1beta1.Query/Params'),
  },
  collection: {
    method: 'GET',
    path: '/ixo/claims/collection/:id',
    summary: 'One claim collection by id',
    pathParams: id,
    responses: { 200: CollectionResponse, ...errors },
    metadata: current('Collection', 'ixo.claims.v1beta1.Query/Collection'),
  },
  collectionList: {
    method: 'GET',
    path: '/ixo/claims/collections',
    summary: 'All claim collections, paginated',
    query: PaginationQuery,
    responses: { 200: CollectionListResponse, ...errors },
    metadata: current('CollectionList', 'ixo.claims.v1beta1.Query/CollectionList'),
  },
  claim: {
    method: 'GET',
    path: '/ixo/claims/claim/:id',
    summary: 'One claim by id',
    pathParams: id,
    responses: { 200: ClaimResponse, ...errors },
    metadata: current('Claim', 'ixo.claims.v1beta1.Query/Claim'),
  },
  claimList: {
    method: 'GET',
    path: '/ixo/claims/claims',
    summary: 'All claims, paginated',
    query: PaginationQuery,
    responses: { 200: ClaimListResponse, ...errors },
    metadata: current('ClaimList', 'ixo.claims.v1beta1.Query/ClaimList'),
  },
});

const tokenRoutes = c.router({
  params: {
    method: 'GET',
    path: '/ixo/token/params',
    summary: 'Token module parameters',
    responses: { 200: z.strictObject({ params: TokenParams }), ...errors },
    metadata: current('IXOTokenParams', 'ixo.token.v1beta1.Query/Params'),
  },
  tokenMetadata: {
    method: 'GET',
    path: '/ixo/token/metadata/:id',
    summary: 'Metadata document of one token id',
    pathParams: id,
    responses: {
      200: z.strictObject({
        name: z.string(),
        description: z.string(),
        decimals: z.string(),
        image: z.string(),
        index: z.string(),
        properties: TokenMetadataProperties.nullable(),
      }),
      ...errors,
    },
    metadata: current('TokenMetadata', 'ixo.token.v1beta1.Query/TokenMetadata'),
  },
  tokenList: {
    method: 'GET',
    path: '/ixo/token/minter/:minter',
    summary: 'Tokens of one minter, paginated',
    pathParams: minter,
    query: PaginationQuery,
    responses: { 200: TokenListResponse, ...errors },
    metadata: current('TokenList', 'ixo.token.v1beta1.Query/TokenList'),
  },
  tokenDoc: {
    method: 'GET',
    path: '/ixo/token/minter/:minter/:contract_address',
    summary: 'One token of a minter by contract address',
    pathParams: minterAndContract,
    responses: { 200: TokenDocResponse, ...errors },
    metadata: current('TokenDoc', 'ixo.token.v1beta1.Query/TokenDoc'),
  },
});

const iidRoutes = c.router({
  iidDocuments: {
    method: 'GET',
    path: '/ixo/did/dids',
    summary: 'All DID documents, paginated',
    query: PaginationQuery,
    responses: {
      200: z.strictObject({ iidDocuments: z.array(IidDocument), pagination: PageResponse.nullable() }),
      ...errors,
    },
    metadata: current('IidDocuments', 'ixo.iid.v1beta1.Query/IidDocuments'),
  },
  iidDocument: {
    method: 'GET',
    path: '/ixo/did/dids/:id',
    summary: 'One DID document by DID',
    pathParams: id,
    responses: { 200: z.strictObject({ iidDocument: IidDocument }), ...errors },
    metadata: current('IidDocument', 'ixo.iid.v1beta1.Query/IidDocument'),
  },
});

/** Path shapes of older chain releases (claims v0.20–v3, token v0.20), served as aliases. */
const legacyRoutes = c.router({
  claim: {
    method: 'GET',
    path: '/ixo/claim/:id',
    summary: 'One claim by id (claims path shape of chain v0.20–v3)',
    deprecated: true,
    pathParams: id,
    responses: { 200: ClaimResponse, ...errors },
    metadata: legacy('LegacyClaim', 'ixo.claims.v1beta1.Query/Claim'),
  },
  claimList: {
    method: 'GET',
    path: '/ixo/claim',
    summary: 'All claims, paginated (claims path shape of chain v0.20–v3)',
    deprecated: true,
    query: PaginationQuery,
    responses: { 200: ClaimListResponse, ...errors },
    metadata: legacy('LegacyClaimList', 'ixo.claims.v1beta1.Query/ClaimList'),
  },
  collection: {
    method: 'GET',
    path: '/ixo/collection/:id',
    summary: 'One claim collection by id (claims path shape of chain v0.20–v3)',
    deprecated: true,
    pathParams: id,
    responses: { 200: CollectionResponse, ...errors },
    metadata: legacy('LegacyCollection', 'ixo.claims.v1beta1.Query/Collection'),
  },
  collectionList: {
    method: 'GET',
    path: '/ixo/collection',
    summary: 'All claim collections, paginated (claims path shape of chain v0.20–v3)',
    deprecated: true,
    query: PaginationQuery,
    responses: { 200: CollectionListResponse, ...errors },
    metadata: legacy('LegacyCollectionList', 'ixo.claims.v1beta1.Query/CollectionList'),
  },
  tokenList: {
    method: 'GET',
    path: '/ixo/token/:minter',
    summary: 'Tokens of one minter, paginated (token path shape of chain v0.20)',
    deprecated: true,
    pathParams: minter,
    query: PaginationQuery,
    responses: { 200: TokenListResponse, ...errors },
    metadata: legacy('LegacyTokenList', 'ixo.token.v1beta1.Query/TokenList'),
  },
  tokenDoc: {
    method: 'GET',
    path: '/ixo/token/:minter/:contract_address',
    summary: 'One token of a minter by contract address (token path shape of chain v0.20)',
    deprecated: true,
    pathParams: minterAndContract,
    responses: { 200: TokenDocResponse, ...errors },
    metadata: legacy('LegacyTokenDoc', 'ixo.token.v1beta1.Query/TokenDoc'),
  },
});

/**
 * Chain query gateway (spec part B): HTTP/JSON GET routes in front of the IXO chain's gRPC query services,
 * with Cosmos REST JSON bodies and the Cosmos error body. Every route also accepts {@link ChainHeaders}.
 *
 * @example
 * GET /ixo/entity/did:ixo:entity:abc → 200 {"entity": {...}, "iidDocument": {...}}
 * GET /ixo/claims/claims?pagination.limit=10&pagination.key=<next_key> → 200 {"claims": [...], "pagination": {...}}
 * GET /ixo/nope → 501 {"code":12,"message":"Not Implemented","details":[]}
 */
export const chainContract = c.router(
  {
    entity: entityRoutes,
    claims: claimsRoutes,
    token: tokenRoutes,
    iid: iidRoutes,
    legacy: legacyRoutes,
  },
  { baseHeaders: ChainHeaders },
);

export type ChainContract = typeof chainContract;
