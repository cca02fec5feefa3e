import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { OracleConfig } from '../../../contracts/oracle.js';
import {
  configQuery,
  effectiveOverrides,
  endpointsQuery,
  unresolvableError,
} from '../config/config-queries.js';
import { pickUrls } from '../config/resolve-config.js';
import { useOraclesContext } from '../context/oracles-context.js';
import type { OracleOverrides } from '../types.js';

/** What {@link useOraclesConfig} returns. */
export interface OraclesConfigResult {
  /** The oracle's public `/config` (DIDs, name, model, price), once read. */
  config: OracleConfig | undefined;
  /** The HTTP base URL in use: `overrides.baseUrl`, else the chain document's `oracleService` origin. */
  apiUrl: string | undefined;
  /** The WebSocket URL: `overrides.wsUrl`, else `wsService`, else `/config`'s `wsUrl`, else `apiUrl`. */
  wsUrl: string | undefined;
  /** True when the API URL is known and `/config` has been read. */
  isConfigReady: boolean;
  /** True while the addresses or `/config` are being read for the first time. */
  isLoading: boolean;
  /**
   * Why the oracle is not ready: the chain lookup failed, no chain URL or base URL is set, or `/config`
   * failed. The message names the step. Lookups retry with backoff and recover by themselves.
   */
  error: Error | undefined;
}

/**
 * Resolves an oracle's addresses from its on-chain IID document (through the provider's `chainRestUrl`), then
 * reads its `/config` (TanStack queries under `oracleKeys.endpoints` / `oracleKeys.config`). `overrides`
 * (`{ baseUrl, wsUrl }`, here or once on the provider) win; with `baseUrl` there is no chain lookup.
 *
 * @example
 * const { config, isConfigReady, error } = useOraclesConfig('did:ixo:entity:oracle1');
 * if (error) return <p>{error.message}</p>;
 * if (isConfigReady) console.log(config?.model, config?.price);
 */
export function useOraclesConfig(oracleDid: string, hookOverrides?: OracleOverrides): OraclesConfigResult {
  const ctx = useOraclesContext();
  const overrides = effectiveOverrides(ctx, hookOverrides);
  const { chainRestUrl } = ctx;
  const needsChain = !overrides?.baseUrl || !overrides.wsUrl;
  const chainEnabled = needsChain && chainRestUrl !== undefined && oracleDid !== '';
  const endpoints = useQuery(
    { ...endpointsQuery(ctx, oracleDid, chainRestUrl ?? ''), enabled: chainEnabled },
    ctx.queryClient,
  );
  const apiBase = overrides?.baseUrl ?? endpoints.data?.apiUrl;
  const apiKey = apiBase?.replace(/\/+$/, '');
  const config = useQuery(
    { ...configQuery(ctx, oracleDid, apiKey ?? ''), enabled: apiKey !== undefined && oracleDid !== '' },
    ctx.queryClient,
  );
  const { apiUrl, wsUrl } = pickUrls(overrides, endpoints.data, config.data);
  const chainPending = chainEnabled && !overrides?.baseUrl && endpoints.data === undefined;
  const lookupError = chainEnabled ? (endpoints.error ?? endpoints.failureReason ?? undefined) : undefined;
  const configError = config.error ?? config.failureReason ?? undefined;
  let error: Error | undefined =
    (!overrides?.baseUrl ? lookupError : undefined) ?? (config.data ? undefined : configError);
  const unresolvable = oracleDid !== '' && !overrides?.baseUrl && chainRestUrl === undefined;
  const noService = endpoints.data !== undefined && !endpoints.data.apiUrl && !overrides?.baseUrl;
  // One Error object per cause, not one per render (apps compare errors in effects).
  const setupError = useMemo(
    () =>
      unresolvable
        ? unresolvableError(oracleDid)
        : noService
          ? new Error(`The chain lookup of ${oracleDid} found no oracleService endpoint`)
          : undefined,
    [unresolvable, noService, oracleDid],
  );
  error ??= setupError;
  const { data } = config;
  const isConfigReady = apiUrl !== undefined && data !== undefined && !chainPending;
  const isLoading = (chainEnabled && endpoints.isPending) || (apiKey !== undefined && config.isPending);
  // One object until a field changes (`config` is the query's structurally shared data).
  return useMemo(
    () => ({ config: data, apiUrl, wsUrl, isConfigReady, isLoading, error }),
    [data, apiUrl, wsUrl, isConfigReady, isLoading, error],
  );
}
