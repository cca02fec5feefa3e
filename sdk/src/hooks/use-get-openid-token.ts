import { useOraclesContext } from '../context/oracles-context.js';
import { useQuery } from '../store/use-query.js';

/** An OpenID token of the messaging (Matrix) server, as `/openid/request_token` answers it. */
export interface OpenIdToken {
  access_token: string;
  token_type: string;
  matrix_server_name: string;
  expires_in: number;
}

/** The wallet's messaging-server session, and the user's Matrix id when known. */
export interface OpenIdTokenArgs {
  homeServer: string;
  accessToken: string;
  /** `@user:server`; looked up with `/account/whoami` when absent. */
  userId?: string;
}

const matrixFetch = async <T>(url: string, accessToken: string, init: RequestInit = {}): Promise<T> => {
  const res = await globalThis.fetch(url, {
    ...init,
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
  });
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
}: OpenIdTokenArgs): Promise<OpenIdToken> {
  const base = (/^https?:\/\//.test(homeServer) ? homeServer : `https://${homeServer}`).replace(/\/+$/, '');
  const uid =
    userId ??
    (await matrixFetch<{ user_id: string }>(`${base}/_matrix/client/v3/account/whoami`, accessToken)).user_id;
  return matrixFetch<OpenIdToken>(
    `${base}/_matrix/client/v3/user/${encodeURIComponent(uid)}/openid/request_token`,
    accessToken,
    { method: 'POST', body: '{}' },
  );
}

/** What {@link useGetOpenIdToken} returns. */
export interface UseGetOpenIdTokenResult {
  openIdToken: OpenIdToken | undefined;
  isLoading: boolean;
  error: Error | undefined;
  refetch: () => Promise<OpenIdToken | undefined>;
}

/**
 * The user's messaging-server OpenID token, minted with the provider wallet's `matrix` session and cached
 * for the provider's life (refetch to renew).
 *
 * @example
 * const { openIdToken } = useGetOpenIdToken();
 */
export function useGetOpenIdToken(): UseGetOpenIdTokenResult {
  const { wallet, cache } = useOraclesContext();
  const { homeServer, accessToken } = wallet.matrix;
  const query = useQuery(
    cache,
    ['openIdToken', wallet.did, homeServer],
    () => getOpenIdToken({ homeServer, accessToken }),
    homeServer !== '' && accessToken !== '',
  );
  return { openIdToken: query.data, isLoading: query.isLoading, error: query.error, refetch: query.refetch };
}
