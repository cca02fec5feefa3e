import { oracleContract, type ModelInfo } from '../../../contracts/oracle.js';
import { useOraclesContext } from '../context/oracles-context.js';
import { useQuery } from '../store/use-query.js';
import type { OracleOverrides } from '../types.js';
import { useOracleHttp } from './use-oracle-http.js';
import { useOraclesConfig } from './use-oracles-config.js';

/** What {@link useModels} returns. */
export interface UseModelsResult {
  models: ModelInfo[];
  /** The id of the oracle's default model. */
  defaultModel: string | undefined;
  isLoading: boolean;
  error: Error | undefined;
}

/**
 * The models an oracle can answer with (`GET /models`, as reference SDK 1.4.0); pass the chosen id to
 * `useChat({ model })`.
 *
 * @example
 * const { models, defaultModel } = useModels(oracleDid);
 */
export function useModels(oracleDid: string, overrides?: OracleOverrides): UseModelsResult {
  const { cache } = useOraclesContext();
  const http = useOracleHttp(oracleDid, overrides);
  const config = useOraclesConfig(oracleDid, overrides);
  const query = useQuery(
    cache,
    ['oracle-models', oracleDid, http?.baseUrl ?? null],
    () => {
      if (!http) throw new Error('The oracle config is not ready');
      return http.call(oracleContract.models, {});
    },
    http !== undefined,
  );
  return {
    models: query.data?.models ?? [],
    defaultModel: query.data?.default,
    // Loading until the list arrives, the oracle's config resolution included.
    isLoading: query.isLoading || (config.isLoading && config.error === undefined),
    error: query.error ?? config.error,
  };
}
