import type { AppRoute, AppRouter } from '@ts-rest/core';
import { CHAIN_DEFAULT_PREFIX, chainContract } from '../../contracts/chain.js';
import type { MethodName } from '../../generated/proto/chain-descriptor.js';
import { toMethodName } from './grpc-methods.js';

/** Which generation of REST paths a route belongs to (chain-rest-conventions §2). */
export type PathShape = 'current' | 'legacy';

/** One contract route bound to the gRPC method it is answered by. */
export interface ChainRouteBinding {
  /** Dotted contract key, e.g. `entity.entity` or `legacy.claimList`. */
  key: string;
  route: AppRoute;
  method: MethodName;
  shape: PathShape;
  /** The path after the prefix, Express style: `/entity/:id`. */
  suffix: string;
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
    const meta = value.metadata as { grpcMethod?: unknown; shape?: unknown } | undefined;
    const method = typeof meta?.grpcMethod === 'string' ? toMethodName(meta.grpcMethod) : undefined;
    if (!method) throw new Error(`chain route ${key} names no known gRPC method`);
    const head = `/${CHAIN_DEFAULT_PREFIX}`;
    if (!value.path.startsWith(`${head}/`)) throw new Error(`chain route ${key} is not under ${head}/`);
    const shape: PathShape = meta?.shape === 'legacy' ? 'legacy' : 'current';
    return [{ key, route: value, method, shape, suffix: value.path.slice(head.length) }];
  });
}

function isAppRoute(value: AppRoute | AppRouter): value is AppRoute {
  return typeof (value as AppRoute).method === 'string' && typeof (value as AppRoute).path === 'string';
}

function compareSpecificity(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = (sa[i] ?? '').startsWith(':');
    const pb = (sb[i] ?? '').startsWith(':');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return sa.length - sb.length || a.localeCompare(b);
}
