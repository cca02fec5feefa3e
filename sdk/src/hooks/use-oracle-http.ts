import type { OracleHttp } from '../http/oracle-http.js';
import { useOraclesContext } from '../context/oracles-context.js';
import type { OracleOverrides } from '../types.js';
import { useOraclesConfig } from './use-oracles-config.js';

/** The HTTP client of an oracle once its API URL has resolved (internal). */
export function useOracleHttp(oracleDid: string, overrides?: OracleOverrides): OracleHttp | undefined {
  const ctx = useOraclesContext();
  const { apiUrl } = useOraclesConfig(oracleDid, overrides);
  return apiUrl ? ctx.http(oracleDid, apiUrl) : undefined;
}
