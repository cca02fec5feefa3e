import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { UserPreferences } from '../../../contracts/preferences.js';
import { preferencesRoutes as preferencesContract } from '../http/routes.js';
import { retryOptions } from '../config/config-queries.js';
import { useOraclesContext } from '../context/oracles-context.js';
import { oracleKeys } from '../query/keys.js';
import type { OracleOverrides } from '../types.js';
import { useOraclesConfig } from './use-oracles-config.js';

/** Options of {@link useUserPreferences}. */
export interface UseUserPreferencesOptions {
  /** A shared room; the user's own room with the oracle when absent. */
  roomId?: string;
  /** `{ baseUrl }` instead of the resolved address (or set it once on the provider). */
  overrides?: OracleOverrides;
}

/** What {@link useUserPreferences} returns. */
export interface UseUserPreferencesResult {
  /** The user's preferences in the room; `null` when none are set; `undefined` until read. */
  preferences: UserPreferences | null | undefined;
  isLoading: boolean;
  error: Error | undefined;
  refetch: () => Promise<unknown>;
}

/**
 * The user's preferences with an oracle (spec part D): `GET /user-preferences[?roomId=]` of the
 * user-preferences plugin, a TanStack query (`oracleKeys.userPreferences`). It refreshes by itself when a
 * chat turn's `set_user_preferences` tool call ends (the agent changed them).
 *
 * @example
 * const { preferences } = useUserPreferences(oracleDid);
 * return <p>Replies in {preferences?.language ?? 'the default language'}</p>;
 */
export function useUserPreferences(
  oracleDid: string,
  options: UseUserPreferencesOptions = {},
): UseUserPreferencesResult {
  const ctx = useOraclesContext();
  const config = useOraclesConfig(oracleDid, options.overrides);
  const { apiUrl } = config;
  const roomId = options.roomId ?? null;
  const query = useQuery(
    {
      queryKey: oracleKeys.userPreferences(oracleDid, ctx.wallet.did, roomId),
      queryFn: async ({ signal }) =>
        (await ctx
          .http(oracleDid, apiUrl ?? '')
          .call(preferencesContract.get, { query: roomId === null ? {} : { roomId }, signal })) ?? null,
      enabled: apiUrl !== undefined && oracleDid !== '',
      retry: retryOptions(ctx.retry).retry,
      retryDelay: retryOptions(ctx.retry).retryDelay,
    },
    ctx.queryClient,
  );
  const { data: preferences, refetch } = query;
  const error = config.error ?? query.error ?? undefined;
  // Idle with no oracle named (`oracleDid` empty).
  const isLoading = oracleDid !== '' && preferences === undefined && error === undefined;
  // One object until the preferences or a state change (the query's data is structurally shared).
  return useMemo(
    () => ({ preferences, isLoading, error, refetch }),
    [preferences, isLoading, error, refetch],
  );
}
