import type { OracleConfig } from '../../../contracts/oracle.js';
import { fetchOracleConfig, fetchOracleEndpoints, pickUrls } from '../config/resolve-config.js';
import { useOraclesContext } from '../context/oracles-context.js';
import { useQuery } from '../store/use-query.js';
import type { OracleOverrides } from '../types.js';

/** What {@link useOraclesConfig} returns. */
export interface OraclesConfigResult {
  /** The oracle's public `/config` (DIDs, name, model, price), once read. */
  config: OracleConfig | undefined;
  /** The HTTP base URL in use: `overrides.baseUrl`, else the chain document's `oracleService` origin. */
  apiUrl: string | undefined;
  /** The WebSocket URL: `overrides.wsUrl`, else `wsService`, else `/config`'s `wsUrl`, else `apiUrl`. */
  wsUrl: string | undefined;
  /** True when the API URL is known and `/config` has been read (or failed: the URL is still usable). */
  isConfigReady: boolean;
  isLoading: boolean;
  error: Error | undefined;
}

/**
 * Resolves an oracle's addresses from its on-chain IID document (through the provider's `chainRestUrl`), then
 * reads its `/config`. `overrides` win. Nothing throws when something is unset: without a chain URL and
 * without `overrides.baseUrl` the result simply stays not ready.
 *
 * @example
 * const { config, isConfigReady } = useOraclesConfig('did:ixo:entity:oracle1');
 * if (isConfigReady) console.log(config?.model, config?.price);
 */
export function useOraclesConfig(oracleDid: string, overrides?: OracleOverrides): OraclesConfigResult {
  const ctx = useOraclesContext();
  const { chainRestUrl, chainRoutePrefix, cache } = ctx;
  const needsChain = !overrides?.baseUrl || !overrides.wsUrl;
  const endpoints = useQuery(
    cache,
    ['oracles-config', oracleDid, 'endpoints', chainRestUrl ?? null],
    () => fetchOracleEndpoints(chainRestUrl ?? '', oracleDid, chainRoutePrefix),
    needsChain && chainRestUrl !== undefined && oracleDid !== '',
  );
  const apiBase = overrides?.baseUrl ?? endpoints.data?.apiUrl;
  const config = useQuery(
    cache,
    ['oracles-config', oracleDid, 'config', apiBase ?? null],
    () => fetchOracleConfig(apiBase ?? ''),
    apiBase !== undefined,
  );
  const { apiUrl, wsUrl } = pickUrls(overrides, endpoints.data, config.data);
  const chainPending = needsChain && chainRestUrl !== undefined && endpoints.isLoading && !overrides?.baseUrl;
  return {
    config: config.data,
    apiUrl,
    wsUrl,
    isConfigReady: apiUrl !== undefined && config.isSettled && !chainPending,
    isLoading: endpoints.isLoading || config.isLoading,
    error: endpoints.error ?? config.error,
  };
}
