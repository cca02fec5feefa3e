import { loadFixtureData } from '../../../server/chain/fixture-node/fixture-data.js';
import type { TestApp } from '../app.js';

/** An OpenAPI 3.0 document as the clients receive it (JSON). */
export interface OpenApiDocument {
  openapi: string;
  servers?: { url: string; description?: string }[];
  paths: Record<string, Record<string, { operationId?: string } | undefined>>;
  [key: string]: unknown;
}

/**
 * The OpenAPI document the clients are built from: the one the live server serves (`GET /openapi.json`,
 * describing this deployment and naming the server it came from), as a client in another language gets it.
 */
export async function documentFor(app: TestApp): Promise<OpenApiDocument> {
  const response = await fetch(`${app.url}/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
  return (await response.json()) as OpenApiDocument;
}

/**
 * One request a client makes. `params` are named as in the document (path, query and header parameters
 * alike, e.g. `id`, `pagination.limit`, `authorization`); each client places them where the document says.
 */
export interface PlannedCall {
  /** Names the call in reports (an operation may be called more than once). */
  label: string;
  operationId: string;
  params: Record<string, string>;
  /** The JSON request body, when the operation has one. */
  body?: Record<string, string>;
  expectStatus: number;
}

/** What the clients are asked to do and to cover. */
export interface ClientPlan {
  calls: PlannedCall[];
  /**
   * Every operation of these paths must be called at least once: an entry ending in `*` covers the paths
   * that start with what precedes it, any other entry the one path it names.
   */
  cover: string[];
}

/** Bearer token of the operator routes in the app under test. */
export const OPERATOR_TOKEN = 'clients-operator-token';

/** The USSD session the clients dial; the operator routes then find it. */
const SESSION = { sessionId: 'clients-session-1', serviceCode: '*384*123#', phoneNumber: '+254712345678' };

/**
 * Calls of every USSD and chain operation of `app` with ids that exist in its fixture chain node, plus
 * not-found cases. `tokenless` adds the agent service's and the system's routes that need no token.
 */
export async function planFor(app: TestApp, options: { tokenless: boolean }): Promise<ClientPlan> {
  const data = await loadFixtureData({ publicBaseUrl: app.url });
  const first = <T>(map: ReadonlyMap<string, T>, what: string): [string, T] => {
    const entry = map.entries().next();
    if (entry.done === true) throw new Error(`the fixture chain node has no ${what}`);
    return entry.value;
  };
  const [entityId] = first(data.entities, 'entity');
  const [didId] = first(data.iidDocuments, 'DID document');
  const [collectionId] = first(data.collections, 'collection');
  const [claimId] = first(data.claims, 'claim');
  const [, token] = first(data.tokens, 'token');
  const [metadataId] = first(data.tokenMetadata, 'token metadata');
  const minter = { minter: token.minter };
  const tokenDoc = { minter: token.minter, contract_address: token.contract_address };
  const page = { 'pagination.limit': '1' };
  const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const ok = (operationId: string, params: Record<string, string> = {}): PlannedCall => ({
    label: operationId,
    operationId,
    params,
    expectStatus: 200,
  });

  const calls: PlannedCall[] = [
    {
      label: 'ussd.session dial',
      operationId: 'ussd.session',
      params: {},
      body: { ...SESSION, text: '' },
      expectStatus: 200,
    },
    {
      label: 'ussd.session navigate',
      operationId: 'ussd.session',
      params: {},
      body: { ...SESSION, text: '1' },
      expectStatus: 200,
    },
    {
      label: 'ussd.debug',
      operationId: 'ussd.debug',
      params: { sessionId: SESSION.sessionId, ...operator },
      expectStatus: 200,
    },
    {
      label: 'ussd.debug not found',
      operationId: 'ussd.debug',
      params: { sessionId: 'no-such-session', ...operator },
      expectStatus: 404,
    },
    { label: 'ussd.sessions', operationId: 'ussd.sessions', params: operator, expectStatus: 200 },
    ok('IXOEntityParams'),
    ok('Entity', { id: entityId }),
    {
      label: 'Entity not found',
      operationId: 'Entity',
      params: { id: 'did:ixo:entity:no-such-entity' },
      expectStatus: 404,
    },
    ok('EntityMetaData', { id: entityId }),
    ok('EntityIidDocument', { id: entityId }),
    ok('EntityVerified', { id: entityId }),
    ok('EntityList', page),
    ok('IXOClaimsParams'),
    ok('Collection', { id: collectionId }),
    ok('CollectionList', page),
    ok('Claim', { id: claimId }),
    { label: 'Claim not found', operationId: 'Claim', params: { id: 'no-such-claim' }, expectStatus: 404 },
    ok('ClaimList', page),
    // The document cannot say that pagination.key is base64 (a refinement): a client sends it, the server refuses it.
    {
      label: 'ClaimList bad pagination.key',
      operationId: 'ClaimList',
      params: { 'pagination.key': '!not-base64!' },
      expectStatus: 400,
    },
    ok('IXOTokenParams'),
    ok('TokenMetadata', { id: metadataId }),
    ok('TokenList', { ...minter, ...page }),
    ok('TokenDoc', tokenDoc),
    ok('IidDocuments', page),
    ok('IidDocument', { id: didId }),
    ok('LegacyClaim', { id: claimId }),
    ok('LegacyClaimList', page),
    ok('LegacyCollection', { id: collectionId }),
    ok('LegacyCollectionList', page),
    ok('LegacyTokenList', { ...minter, ...page }),
    ok('LegacyTokenDoc', tokenDoc),
  ];
  if (!options.tokenless) return { calls, cover: ['/api/ussd', '/api/ussd/*', '/ixo/*'] };
  return {
    calls: [
      ...calls,
      ok('oracle.config'),
      ok('oracle.models'),
      ok('system.health'),
      ok('system.live'),
      ok('system.ready'),
      ok('system.probe'),
    ],
    cover: ['/api/ussd', '/api/ussd/*', '/ixo/*', '/config', '/models', '/health', '/health/*', '/'],
  };
}

/** USSD_RATE_LIMIT_PER_MINUTE of the app {@link rateLimitPlan} is for. */
export const RATE_LIMIT = 2;

/** Dials one more time than an app with USSD_RATE_LIMIT_PER_MINUTE={@link RATE_LIMIT} allows: the last is a 429. */
export function rateLimitPlan(): ClientPlan {
  const dial = (n: number, expectStatus: number): PlannedCall => ({
    label: `ussd.session dial ${n}`,
    operationId: 'ussd.session',
    params: {},
    body: { ...SESSION, sessionId: `clients-rate-${n}`, text: '' },
    expectStatus,
  });
  return {
    calls: Array.from({ length: RATE_LIMIT + 1 }, (_, i) => dial(i + 1, i < RATE_LIMIT ? 200 : 429)),
    cover: [],
  };
}
