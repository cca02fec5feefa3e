import type { AppRoute, ClientInferResponseBody } from '@ts-rest/core';
import type { z } from 'zod';
import type { OracleRouteMetadata } from '../../../contracts/oracle.js';

type In<T> = T extends z.ZodTypeAny ? z.input<T> : never;
type Params<R> = R extends { pathParams: infer P } ? { params: In<P> } : { params?: never };
type Query<R> = R extends { query: infer Q } ? { query?: Partial<In<Q>> } : { query?: never };
type Body<R> = R extends { method: 'POST' | 'PUT' | 'PATCH'; body: infer B }
  ? B extends z.ZodTypeAny
    ? undefined extends z.input<B>
      ? { body?: z.input<B> }
      : { body: z.input<B> }
    : { body?: never }
  : { body?: never };

/**
 * The arguments of a call of a contract route: its path parameters, query and body, typed from the route's
 * schemas, so a call that drifts from `contracts/` is a compile error.
 */
export type CallArgs<R extends AppRoute> = Params<R> &
  Query<R> &
  Body<R> & { signal?: AbortSignal; headers?: Record<string, string> };

/**
 * The body of a route's success answer (200 or 201), typed from the contract; `null` too when the route may
 * answer 204 (no body).
 */
export type CallResult<R extends AppRoute> =
  | ClientInferResponseBody<R, Extract<keyof R['responses'], 200 | 201>>
  | (204 extends keyof R['responses'] ? null : never);

/** A route's path with its `:params` filled in (percent-encoded). */
export function routePath(route: AppRoute, params: Record<string, unknown> | undefined): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params?.[name];
    if (typeof value !== 'string' && typeof value !== 'number')
      throw new Error(`Missing path parameter ${name} of ${route.path}`);
    return encodeURIComponent(value);
  });
}

/** Whether the contract marks a route public (no capability token). */
export function isPublic(route: AppRoute): boolean {
  return (route.metadata as OracleRouteMetadata | undefined)?.auth === 'public';
}
