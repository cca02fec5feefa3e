import type { OraclesContextValue } from '../context/oracles-context.js';
import type { OracleHttp } from '../http/oracle-http.js';
import type { OracleOverrides } from '../types.js';
import { fetchOracleEndpoints, type OracleEndpoints } from './resolve-config.js';

/**
 * The HTTP client of an oracle, resolving its API URL through the provider's cache (the same entry
 * `useOraclesConfig` fills) when `overrides.baseUrl` is not given.
 */
export async function resolveOracleHttp(
  ctx: OraclesContextValue,
  oracleDid: string,
  overrides?: OracleOverrides,
): Promise<OracleHttp> {
  let apiUrl = overrides?.baseUrl;
  if (!apiUrl) {
    const { chainRestUrl } = ctx;
    if (!chainRestUrl)
      throw new Error(
        `Cannot resolve the API URL of ${oracleDid}: set chainRestUrl on OraclesProvider or pass overrides.baseUrl`,
      );
    const key = ['oracles-config', oracleDid, 'endpoints', chainRestUrl] as const;
    const endpoints = await ctx.cache.fetch<OracleEndpoints>(key, () =>
      fetchOracleEndpoints(chainRestUrl, oracleDid, ctx.chainRoutePrefix),
    );
    apiUrl = endpoints?.apiUrl;
    if (!apiUrl) {
      const cause = ctx.cache.get(key).error;
      throw new Error(
        `The oracle ${oracleDid} advertises no oracleService endpoint`,
        cause ? { cause } : undefined,
      );
    }
  }
  return ctx.http(oracleDid, apiUrl.replace(/\/+$/, ''));
}
