import type { IncomingHttpHeaders } from 'node:http';
import { AUTH_HEADERS } from '../../../contracts/oracle.js';
import { AuthError } from './auth-error.js';
import type { TokenVerifier, VerifiedToken } from './token-verifier.js';

/** Who is calling, established from the request's capability tokens. */
export interface AuthContext {
  /** The user's DID: the issuer of the tokens. */
  userDid: string;
  invocation: VerifiedToken | undefined;
  delegation: VerifiedToken | undefined;
}

/** The tokens a caller presents, from HTTP headers or the socket handshake. */
export interface PresentedTokens {
  /** The invocation, without `Bearer `. */
  invocation: string | undefined;
  delegation: string | undefined;
}

/**
 * Reads the tokens of an HTTP request (spec §5 C): `Authorization: Bearer <invocation>` with `X-Auth-Type:
 * ucan` (primary) and `x-ucan-delegation` (downstream authorization, and the fallback on its own).
 */
export function tokensFromHeaders(headers: IncomingHttpHeaders): PresentedTokens {
  const authorization = headers[AUTH_HEADERS.invocation];
  const authType = headers[AUTH_HEADERS.authType];
  const delegation = headers[AUTH_HEADERS.delegation];
  let invocation: string | undefined;
  if (authorization !== undefined && authorization !== '') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw new AuthError('auth_malformed');
    if (authType !== undefined && (typeof authType !== 'string' || authType.toLowerCase() !== 'ucan')) {
      throw new AuthError('auth_malformed');
    }
    invocation = match[1];
  }
  if (Array.isArray(delegation)) throw new AuthError('auth_malformed');
  return { invocation, delegation: delegation === '' ? undefined : delegation };
}

/**
 * Verifies whatever tokens were presented (both in parallel) and that they name the same user. Throws
 * {@link AuthError}; a failure to reach the chain for a did:ixo issuer throws as is (answered 503).
 */
export async function authenticate(tokens: PresentedTokens, verifier: TokenVerifier): Promise<AuthContext> {
  if (tokens.invocation === undefined && tokens.delegation === undefined) throw new AuthError('auth_missing');
  const [invocation, delegation] = await Promise.all([
    tokens.invocation === undefined ? undefined : verifier.verifyInvocation(tokens.invocation),
    tokens.delegation === undefined ? undefined : verifier.verifyDelegation(tokens.delegation),
  ]);
  if (invocation && delegation && invocation.issuer !== delegation.issuer) {
    throw new AuthError('auth_issuer_mismatch');
  }
  const userDid = (invocation ?? delegation)?.issuer;
  if (userDid === undefined) throw new AuthError('auth_missing');
  return { userDid, invocation, delegation };
}
