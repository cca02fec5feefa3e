import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useOraclesContext } from '../context/oracles-context.js';
import { oracleKeys } from '../query/keys.js';

/** An OpenID token of the messaging (Matrix) server, as `/openid/request_token` answers it. */
export interface OpenIdToken {
  access_token: string;
  token_type: string;
  matrix_server_name: string;
  /** Lifetime in seconds. */
  expires_in: number;
}

/** The wallet's messaging-server session, and the user's Matrix id when known. */
export interface OpenIdTokenArgs {
  homeServer: string;
  accessToken: string;
  /** `@user:server`; looked up with `/account/whoami` when absent. */
  userId?: string;
  signal?: AbortSignal;
}

const matrixFetch = async <T>(url: string, accessToken: string, init: RequestInit = {}): Promise<T> => {
  let res: Response;
  try {
    res = await globalThis.fetch(url, {
      ...init,
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
    });
  } catch (e) {
    if ((e as { name?: string }).name === 'AbortError') throw e;
    throw new Error(`The messaging server at ${url} could not be reached (${(e as Error).message})`, {
      cause: e,
    });
  }
  const body = (await res.json().catch(() => ({}))) as { errcode?: string; error?: string };
  if (!res.ok)
    throw new Error(`Matrix ${res.status} ${body.errcode ?? ''}: ${body.error ?? 'request failed'}`.trim());
  return body as T;
};

/**
 * Mints an OpenID token for the user on their messaging server (spec C5): `POST
 * /_matrix/client/v3/user/{userId}/openid/request_token` with the session's access token.
 *
 * @example
 * const token = await getOpenIdToken({ homeServer: 'https://matrix.example.org', accessToken });
 */
export async function getOpenIdToken({
  homeServer,
  accessToken,
  userId,
  signal,
}: OpenIdTokenArgs): Promise<OpenIdToken> {
  const base = (/^https?:\/\//.test(homeServer) ? homeServer : `https://${homeServer}`).replace(/\/+$/, '');
  const uid =
    userId ??
    (
      await matrixFetch<{ user_id: string }>(`${base}/_matrix/client/v3/account/whoami`, accessToken, {
        signal,
      })
    ).user_id;
  return matrixFetch<OpenIdToken>(
    `${base}/_matrix/client/v3/user/${encodeURIComponent(uid)}/openid/request_token`,
    accessToken,
    { method: 'POST', body: '{}', signal },
  );
}

/** What {@link useGetOpenIdToken} returns. */
export interface UseGetOpenIdTokenResult {
  openIdToken: OpenIdToken | undefined;
  isLoading: boolean;
  error: Error | undefined;
  refetch: () => Promise<OpenIdToken | undefined>;
}

/** Renew this long before `expires_in` runs out (or at half the lifetime of a shorter token). */
const RENEW_BEFORE_MS = 60_000;

/** When a token of `expires_in` seconds should be renewed, in ms from when it was minted. */
function openIdRenewAfterMs(expiresInSeconds: number): number {
  const life = Math.max(0, expiresInSeconds * 1000);
  return Math.max(1000, life - Math.min(RENEW_BEFORE_MS, life / 2));
}

/**
 * The user's messaging-server OpenID token, minted with the provider wallet's `matrix` session (query
 * `oracleKeys.openIdToken`), and minted again before its `expires_in` runs out.
 *
 * @example
 * const { openIdToken } = useGetOpenIdToken();
 */
export function useGetOpenIdToken(): UseGetOpenIdTokenResult {
  const { wallet, queryClient } = useOraclesContext();
  const { homeServer, accessToken } = wallet.matrix;
  const query = useQuery(
    {
      queryKey: oracleKeys.openIdToken(wallet.did, homeServer),
      queryFn: ({ signal }) => getOpenIdToken({ homeServer, accessToken, signal }),
      enabled: homeServer !== '' && accessToken !== '',
      staleTime: (q) => (q.state.data ? openIdRenewAfterMs(q.state.data.expires_in) : 0),
      refetchInterval: (q) => (q.state.data ? openIdRenewAfterMs(q.state.data.expires_in) : false),
      retry: 1,
    },
    queryClient,
  );
  const { data: openIdToken, isLoading, refetch: refetchQuery } = query;
  const error = query.error ?? undefined;
  const refetch = useCallback(async () => (await refetchQuery()).data, [refetchQuery]);
  // One object until a field changes.
  return useMemo(
    () => ({ openIdToken, isLoading, error, refetch }),
    [openIdToken, isLoading, error, refetch],
  );
}
