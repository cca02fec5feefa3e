import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ModelInfo } from '../../../contracts/oracle.js';
import { oracleRoutes as oracleContract } from '../http/routes.js';
import { retryOptions } from '../config/config-queries.js';
import { useOraclesContext } from '../context/oracles-context.js';
import { oracleKeys } from '../query/keys.js';
import type { OracleOverrides } from '../types.js';
import { useOraclesConfig } from './use-oracles-config.js';

/** What {@link useModels} returns. */
export interface UseModelsResult {
  models: ModelInfo[];
  /** The id of the oracle's default model. */
  defaultModel: string | undefined;
  isLoading: boolean;
  /** The config resolution's error (naming its step), or the model list's. */
  error: Error | undefined;
}

/**
 * The models an oracle can answer with (`GET /models`, as reference SDK 1.4.0; query
 * `oracleKeys.models`); pass the chosen id to `useChat({ model })`. `overrides` as in `useOraclesConfig`.
 *
 * @example
 * const { models, defaultModel } = useModels(oracleDid);
 */
export function useModels(oracleDid: string, overrides?: OracleOverrides): UseModelsResult {
  const ctx = useOraclesContext();
  const config = useOraclesConfig(oracleDid, overrides);
  const { apiUrl } = config;
  const query = useQuery(
    {
      queryKey: oracleKeys.models(oracleDid, apiUrl ?? ''),
      queryFn: ({ signal }) => ctx.http(oracleDid, apiUrl ?? '').call(oracleContract.models, { signal }),
      enabled: apiUrl !== undefined,
      staleTime: 5 * 60_000,
      ...retryOptions(ctx.retry),
    },
    ctx.queryClient,
  );
  const { data } = query;
  const error = config.error ?? query.error ?? undefined;
  // Loading until the list arrives, the oracle's config resolution included; idle with no oracle named.
  const isLoading = oracleDid !== '' && data === undefined && error === undefined;
  // One object (and one `models` array) until the list or a state changes: apps key effects on them.
  return useMemo(
    () => ({ models: data?.models ?? [], defaultModel: data?.default, isLoading, error }),
    [data, isLoading, error],
  );
}
