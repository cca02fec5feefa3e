import type { QueryClient } from '@tanstack/react-query';
import type { OracleConfig } from '../../../contracts/oracle.js';
import type { OracleHttp } from '../http/oracle-http.js';
import { OracleRequestError } from '../http/oracle-request-error.js';
import { oracleKeys } from '../query/keys.js';
import type { OracleOverrides } from '../types.js';
import { backoffDelay, type BackoffOptions } from '../util/backoff.js';
import { fetchOracleConfig, fetchOracleEndpoints, pickUrls, type OracleEndpoints } from './resolve-config.js';

/** How config lookups (the chain lookup, `/config`, the model list) retry. */
export interface RetryPolicy extends Required<BackoffOptions> {
  /** Retries of one fetch before the query is in error (it keeps refetching with backoff after). */
  attempts: number;
}

/** What the config lookups read from the provider's context (OraclesContextValue has all of it). */
export interface ConfigLookupContext {
  chainRestUrl: string | undefined;
  chainRoutePrefix: string;
  overrides: OracleOverrides | undefined;
  queryClient: QueryClient;
  retry: RetryPolicy;
  http: (oracleDid: string, baseUrl: string) => OracleHttp;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseMs: 1000, maxMs: 30_000, jitter: 0.2 };

/** Network errors, 5xx and 429 are worth retrying; a 4xx other than 429 is not. */
const retryable = (e: unknown): boolean =>
  !(e instanceof OracleRequestError) || e.status === 0 || e.status === 429 || e.status >= 500;

/**
 * Retry options of a lookup: a few retries with backoff, then the error is shown, and the query refetches
 * with a growing backoff while it stays in error, so it recovers by itself when the service returns.
 */
export function retryOptions(policy: RetryPolicy) {
  return {
    retry: (failures: number, e: Error) => failures < policy.attempts && retryable(e),
    retryDelay: (attempt: number) => backoffDelay(attempt, policy),
    refetchInterval: (query: { state: { status: string; errorUpdateCount: number } }) =>
      query.state.status === 'error'
        ? backoffDelay(Math.min(policy.attempts + query.state.errorUpdateCount, 16), policy)
        : false,
  } as const;
}

/** Five minutes: addresses and config change rarely. */
const CONFIG_STALE_MS = 5 * 60_000;

/** The overrides in force for a hook: its own win over the provider's. */
export function effectiveOverrides(
  ctx: Pick<ConfigLookupContext, 'overrides'>,
  overrides: OracleOverrides | undefined,
): OracleOverrides | undefined {
  if (!ctx.overrides) return overrides;
  if (!overrides) return ctx.overrides;
  return { ...ctx.overrides, ...overrides };
}

/** The error when neither a chain URL nor a base URL tells where an oracle is. */
export function unresolvableError(oracleDid: string): Error {
  return new Error(
    `Cannot find the oracle ${oracleDid}: set chainRestUrl (where its DID is looked up) or overrides.baseUrl on OraclesProvider, or pass overrides to the hook`,
  );
}

export function endpointsQuery(ctx: ConfigLookupContext, oracleDid: string, chainRestUrl: string) {
  return {
    queryKey: oracleKeys.endpoints(oracleDid, chainRestUrl, ctx.chainRoutePrefix),
    queryFn: ({ signal }: { signal: AbortSignal }): Promise<OracleEndpoints> =>
      fetchOracleEndpoints(chainRestUrl, oracleDid, ctx.chainRoutePrefix, signal),
    staleTime: CONFIG_STALE_MS,
    ...retryOptions(ctx.retry),
  };
}

export function configQuery(ctx: ConfigLookupContext, oracleDid: string, apiUrl: string) {
  return {
    queryKey: oracleKeys.config(oracleDid, apiUrl),
    queryFn: ({ signal }: { signal: AbortSignal }): Promise<OracleConfig> =>
      fetchOracleConfig(apiUrl, signal),
    staleTime: CONFIG_STALE_MS,
    ...retryOptions(ctx.retry),
  };
}

/** Where an oracle is, resolved for an imperative call. */
export interface ResolvedOracle {
  http: OracleHttp;
  apiUrl: string;
  wsUrl: string;
}

/**
 * Resolves an oracle's addresses for an imperative call (create a session, send, pay …): waits for a lookup
 * in flight (the same query `useOraclesConfig` runs), fetches it when there is none, and throws the lookup's
 * error (naming the step) when it fails.
 */
export async function resolveOracle(
  ctx: ConfigLookupContext,
  oracleDid: string,
  hookOverrides?: OracleOverrides,
): Promise<ResolvedOracle> {
  const overrides = effectiveOverrides(ctx, hookOverrides);
  const client: QueryClient = ctx.queryClient;
  let endpoints: OracleEndpoints | undefined;
  if ((!overrides?.baseUrl || !overrides.wsUrl) && ctx.chainRestUrl) {
    try {
      endpoints = await client.fetchQuery(endpointsQuery(ctx, oracleDid, ctx.chainRestUrl));
    } catch (e) {
      if (!overrides?.baseUrl) throw e;
    }
  }
  const { apiUrl, wsUrl } = pickUrls(overrides, endpoints, undefined);
  if (!apiUrl) {
    if (endpoints)
      throw new OracleRequestError(`The chain lookup of ${oracleDid} found no oracleService endpoint`, {
        status: 200,
        step: 'chain lookup',
      });
    throw unresolvableError(oracleDid);
  }
  let socket = wsUrl;
  if (!overrides?.wsUrl && !endpoints?.wsUrl) {
    const config = await client.fetchQuery(configQuery(ctx, oracleDid, apiUrl)).catch(() => undefined);
    socket = pickUrls(overrides, endpoints, config).wsUrl;
  }
  return { http: ctx.http(oracleDid, apiUrl), apiUrl, wsUrl: socket ?? apiUrl };
}
