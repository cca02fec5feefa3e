import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import type { ZodType, ZodTypeAny } from 'zod';
import {
  CHAIN_DEFAULT_PREFIX,
  CHAIN_PATH_SHAPES,
  chainContract,
  PaginationQuery,
  type ChainPathShape,
  type ChainRouteMeta,
} from '../../contracts/chain.js';
import { compareCodeUnits } from '../../lib/code-unit-order.js';
import { GRPC_METHODS, toMethodName, type MethodBinding } from '../chain-node/grpc-methods.js';

/** One contract route bound to the gRPC method it is answered by. */
export interface ChainRouteBinding {
  /** Dotted contract key, e.g. `entity.entity` or `legacy.claimList`. */
  key: string;
  route: AppRoute;
  /** The gRPC method that answers the route, as the client calls it. */
  grpc: MethodBinding;
  shape: ChainPathShape;
  /** The path after the prefix, Express style: `/entity/:id`. */
  suffix: string;
  /** The route's path parameters schema (ids, DIDs: every one a string), if it has any. */
  pathParams: ZodType<Record<string, string>> | undefined;
  /** The route's query: the Cosmos pagination keys, or none. */
  query: typeof PaginationQuery | undefined;
}

/**
 * Every chain route of the contract with its gRPC method, most specific first (a literal segment wins over
 * a parameter at the same position), so `/token/params` is tried before the legacy `/token/:minter`.
 */
export function chainRouteTable(router: AppRouter = chainContract): ChainRouteBinding[] {
  return collect(router, '').sort((a, b) => compareSpecificity(a.suffix, b.suffix));
}

function collect(router: AppRouter, prefix: string): ChainRouteBinding[] {
  return Object.entries(router).flatMap(([name, value]) => {
    const key = prefix ? `${prefix}.${name}` : name;
    if (!isAppRoute(value)) return collect(value, key);
    const meta = value.metadata as Partial<ChainRouteMeta> | undefined;
    const method = typeof meta?.grpcMethod === 'string' ? toMethodName(meta.grpcMethod) : undefined;
    const grpc = method && GRPC_METHODS.get(method);
    if (!grpc) throw new Error(`chain route ${key} names no known gRPC method`);
    const head = `/${CHAIN_DEFAULT_PREFIX}`;
    if (!value.path.startsWith(`${head}/`)) throw new Error(`chain route ${key} is not under ${head}/`);
    const shape = CHAIN_PATH_SHAPES.find((s) => s === meta?.shape);
    if (!shape) throw new Error(`chain route ${key} names no path shape (${CHAIN_PATH_SHAPES.join(' or ')})`);
    if (value.query !== undefined && value.query !== PaginationQuery) {
      throw new Error(`chain route ${key}: the only query the gateway reads is PaginationQuery`);
    }
    return [
      {
        key,
        route: value,
        grpc,
        shape,
        suffix: value.path.slice(head.length),
        // Every chain path parameter is a ChainParam string (contracts/chain.ts).
        pathParams: isZod(value.pathParams)
          ? (value.pathParams as ZodType<Record<string, string>>)
          : undefined,
        query: value.query === undefined ? undefined : PaginationQuery,
      },
    ];
  });
}

/**
 * The paths of generated/openapi.json (OpenAPI form, `/ixo/token/params`, `/ixo/entity/{id}`) answered by the
 * given gRPC methods (CHAIN_DISABLED_METHODS names): what the served document leaves out when they are off.
 */
export function openApiPathsOf(methods: readonly string[]): Set<string> {
  if (methods.length === 0) return new Set();
  const named = new Set(methods.map((m) => toMethodName(m)));
  return new Set(
    chainRouteTable()
      .filter((b) => named.has(b.grpc.name))
      .map((b) => `/${CHAIN_DEFAULT_PREFIX}${b.suffix.replace(/:([A-Za-z_]+)/g, '{$1}')}`),
  );
}

function isZod(schema: unknown): schema is ZodTypeAny {
  return typeof (schema as ZodTypeAny | undefined)?.safeParse === 'function';
}

function compareSpecificity(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = (sa[i] ?? '').startsWith(':');
    const pb = (sb[i] ?? '').startsWith(':');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return sa.length - sb.length || compareCodeUnits(a, b);
}
