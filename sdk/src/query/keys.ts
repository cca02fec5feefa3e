/** The prefix of every query key of this library in the app's (or the provider's own) QueryClient. */
export const ORACLE_QUERY_PREFIX = 'open-oracles';

const P = ORACLE_QUERY_PREFIX;

/**
 * The query keys of this library's server state (TanStack Query), one prefix for all: a host that passes
 * its own `queryClient` to `OraclesProvider` sees these in its cache and devtools, and can prefetch or
 * invalidate them. Keys are prefixes of one another from left to right, so `oracle(did)` matches every query
 * of that oracle and `all` every query of the library.
 *
 * @example
 * queryClient.invalidateQueries({ queryKey: oracleKeys.sessions(oracleDid) });
 * await queryClient.prefetchQuery({
 *   queryKey: oracleKeys.config(oracleDid, apiUrl),
 *   queryFn: () => fetch(`${apiUrl}/config`).then((r) => r.json()),
 * });
 */
export const oracleKeys = {
  all: [P] as const,
  /** Every query of one oracle. */
  oracle: (oracleDid: string) => [P, oracleDid] as const,
  /** The oracle's API and socket origins, read from its on-chain IID document. */
  endpoints: (oracleDid: string, chainRestUrl: string, prefix = 'ixo') =>
    [P, oracleDid, 'endpoints', chainRestUrl, prefix] as const,
  /** `GET {apiUrl}/config`. */
  config: (oracleDid: string, apiUrl: string) => [P, oracleDid, 'config', apiUrl] as const,
  /** `GET {apiUrl}/models`. */
  models: (oracleDid: string, apiUrl: string) => [P, oracleDid, 'models', apiUrl] as const,
  /** Every session list of the oracle (all users, page sizes). */
  sessions: (oracleDid: string) => [P, oracleDid, 'sessions'] as const,
  /** One user's session list (an infinite query). */
  sessionList: (oracleDid: string, userDid: string, pageSize: number) =>
    [P, oracleDid, 'sessions', userDid, pageSize] as const,
  /** Every preferences record of the oracle. */
  preferences: (oracleDid: string) => [P, oracleDid, 'user-preferences'] as const,
  /** One user's preferences in a room (`null` room: the user's own with the oracle). */
  userPreferences: (oracleDid: string, userDid: string, roomId: string | null) =>
    [P, oracleDid, 'user-preferences', userDid, roomId] as const,
  /** The user's credits with the oracle. */
  credits: (oracleDid: string, userDid: string) => [P, oracleDid, 'credits', userDid] as const,
  /** The messaging server's OpenID token of a user. */
  openIdToken: (userDid: string, homeServer: string) => [P, 'openid-token', userDid, homeServer] as const,
};
