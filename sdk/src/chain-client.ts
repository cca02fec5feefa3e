import { initClient, tsRestFetchApi, type ApiFetcher, type InitClientReturn } from '@ts-rest/core';
import { CHAIN_DEFAULT_PREFIX, chainContract, type ChainContract } from '../../contracts/chain.js';

/** Which generation of REST paths a deployment serves: `/ixo/claims/claims` (current) or `/ixo/claim`. */
export type ChainPathShape = 'current' | 'legacy';

export interface ChainClientOptions {
  /** Gateway origin (and base path, if any), e.g. `https://rest.example.org`. No trailing slash needed. */
  baseUrl: string;
  /** The deployment's route prefix (CHAIN_ROUTE_PREFIX); default `ixo`. */
  prefix?: string;
  /** Headers sent on every request, e.g. `{ authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
  /** Validate 2xx bodies against the contract's schemas (ts-rest `validateResponse`). */
  validateResponse?: boolean;
  /**
   * Where the shape each deployment uses is remembered, keyed by base URL and prefix. Defaults to one map
   * shared by every client of the process, so a second client for the same URL starts on the right shape.
   */
  shapeMemory?: Map<string, ChainPathShape>;
}

interface ChainClientArgs {
  baseUrl: string;
  baseHeaders: Record<string, string>;
  api: ApiFetcher;
  validateResponse: boolean;
}

/** The typed chain client: the contract's routes without `legacy`, plus the remembered path shape. */
export type ChainClient = InitClientReturn<Omit<ChainContract, 'legacy'>, ChainClientArgs> & {
  /** The path shape remembered for this deployment's claims or token routes, once a call has found out. */
  shape(module: 'claims' | 'token'): ChainPathShape | undefined;
};

const sharedShapeMemory = new Map<string, ChainPathShape>();

/**
 * A typed client of the chain query gateway, built with ts-rest's `initClient` from {@link chainContract}.
 * Calls are grouped like the contract (`entity`, `claims`, `token`, `iid`); each returns
 * `{ status, body, headers }` typed per status.
 *
 * Queries whose REST path moved between chain releases (claims v0.20–v3 `/ixo/claim…`, token v0.20
 * `/ixo/token/{minter}…`) try the current shape first; when it answers 404 or 501 the call is retried once
 * on the legacy shape, and the shape that answered successfully is remembered per base URL (and module,
 * as claims and token moved in different releases) and tried first from then on. Once the shape is known,
 * a 404 carrying the node's NotFound (code 5) is an answer, not a missing route, and is not retried.
 *
 * @example
 * const chain = createChainClient({ baseUrl: 'http://localhost:3000' });
 * const res = await chain.entity.entity({ params: { id: 'did:ixo:entity:abc' } });
 * if (res.status === 200) console.log(res.body.iidDocument.service);
 * const page = await chain.claims.claimList({ query: { 'pagination.limit': '10' } });
 */
export function createChainClient(options: ChainClientOptions): ChainClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const prefix = options.prefix ?? CHAIN_DEFAULT_PREFIX;
  const memory = options.shapeMemory ?? sharedShapeMemory;
  const memoryKey = `${baseUrl}|${prefix}`;
  const defaultHead = `${baseUrl}/${CHAIN_DEFAULT_PREFIX}/`;

  // ts-rest inserts path parameters verbatim; encode them (keeping `:` and `@`, which DIDs use and path
  // segments allow) and move the path under the deployment's prefix.
  const api: ApiFetcher = (args) => {
    const path = args.path.startsWith(defaultHead)
      ? `${baseUrl}/${prefix}/${args.path.slice(defaultHead.length)}`
      : args.path;
    return tsRestFetchApi({ ...args, path });
  };
  const clientArgs: ChainClientArgs = {
    baseUrl,
    baseHeaders: options.headers ?? {},
    api,
    validateResponse: options.validateResponse ?? false,
  };
  const raw = initClient(chainContract, clientArgs);

  const twoShapes = <A extends unknown[], R extends { status: number; body: unknown }>(
    module: 'claims' | 'token',
    current: (...args: A) => Promise<R>,
    legacy: (...args: A) => Promise<R>,
  ): ((...args: A) => Promise<R>) => {
    const key = `${memoryKey}|${module}`;
    return async (...args: A): Promise<R> => {
      const known = memory.get(key);
      const first = known ?? 'current';
      const call = (shape: ChainPathShape): Promise<R> =>
        (shape === 'current' ? current : legacy)(...encoded(args));
      const res = await call(first);
      if (!routeMissing(res, known !== undefined)) {
        if (res.status < 400) memory.set(key, first);
        return res;
      }
      const other: ChainPathShape = first === 'current' ? 'legacy' : 'current';
      const retry = await call(other);
      // A success, or (when the first shape is certainly not served) the other shape's own answer.
      if (retry.status < 400 || (res.status === 501 && !routeMissing(retry, true))) {
        memory.set(key, other);
        return retry;
      }
      return res;
    };
  };
  const plain =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      fn(...encoded(args));

  return {
    entity: {
      params: plain(raw.entity.params),
      entity: plain(raw.entity.entity),
      entityMetaData: plain(raw.entity.entityMetaData),
      entityIidDocument: plain(raw.entity.entityIidDocument),
      entityVerified: plain(raw.entity.entityVerified),
      entityList: plain(raw.entity.entityList),
    },
    claims: {
      params: plain(raw.claims.params),
      collection: twoShapes('claims', raw.claims.collection, raw.legacy.collection),
      collectionList: twoShapes('claims', raw.claims.collectionList, raw.legacy.collectionList),
      claim: twoShapes('claims', raw.claims.claim, raw.legacy.claim),
      claimList: twoShapes('claims', raw.claims.claimList, raw.legacy.claimList),
    },
    token: {
      params: plain(raw.token.params),
      tokenMetadata: plain(raw.token.tokenMetadata),
      tokenList: twoShapes('token', raw.token.tokenList, raw.legacy.tokenList),
      tokenDoc: twoShapes('token', raw.token.tokenDoc, raw.legacy.tokenDoc),
    },
    iid: {
      iidDocuments: plain(raw.iid.iidDocuments),
      iidDocument: plain(raw.iid.iidDocument),
    },
    shape: (module) => memory.get(`${memoryKey}|${module}`),
  };
}

/**
 * Whether an answer may mean "this path shape is not served here": 501 always; 404 while the shape of the
 * deployment is unknown (an old node can route a new path to another method that then answers NotFound,
 * e.g. `/ixo/token/minter/X` to the v0.20 `TokenDoc` route), afterwards only a 404 without the node's
 * NotFound body (code 5), e.g. from a proxy.
 */
function routeMissing(res: { status: number; body: unknown }, shapeKnown: boolean): boolean {
  if (res.status === 501) return true;
  if (res.status !== 404) return false;
  return !shapeKnown || (res.body as { code?: unknown } | null)?.code !== 5;
}

/** Percent-encodes path parameter values (`/`, `?`, `#`, spaces …), keeping `:` and `@` readable. */
function encoded<A extends unknown[]>(args: A): A {
  const [first, ...rest] = args;
  const params = (first as { params?: Record<string, string> } | undefined)?.params;
  if (!params) return args;
  const encodedParams = Object.fromEntries(
    Object.entries(params).map(([k, v]) => [
      k,
      encodeURIComponent(v).replace(/%3A/gi, ':').replace(/%40/g, '@'),
    ]),
  );
  return [{ ...(first as object), params: encodedParams }, ...rest] as unknown as A;
}
