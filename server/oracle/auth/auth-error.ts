import type { OracleErrorCode } from '../../../contracts/errors.js';

/** The codes a capability-token check can fail with (contracts/errors.ts). */
export type AuthErrorCode = Extract<
  OracleErrorCode,
  | 'auth_missing'
  | 'auth_malformed'
  | 'auth_bad_signature'
  | 'auth_unknown_issuer'
  | 'auth_wrong_audience'
  | 'auth_expired'
  | 'auth_not_yet_valid'
  | 'auth_lifetime_too_long'
  | 'auth_wrong_capability'
  | 'auth_issuer_mismatch'
  | 'delegation_missing'
  | 'delegation_expired'
>;

/** What the client is told for each code: what is wrong and what to do, never the token itself. */
const AUTH_MESSAGES: Record<AuthErrorCode, string> = {
  auth_missing:
    'Authentication required: send Authorization: Bearer <invocation> with X-Auth-Type: ucan, or x-ucan-delegation.',
  auth_malformed:
    'The capability token is malformed (expected base64 of a UCAN CAR archive; X-Auth-Type: ucan).',
  auth_bad_signature: "The capability token's signature does not verify against its issuer's key.",
  auth_unknown_issuer: "The token issuer's DID cannot be resolved to an Ed25519 key.",
  auth_wrong_audience: 'The capability token is addressed to another audience than this oracle.',
  auth_expired: 'The capability token has expired; mint a new one.',
  auth_not_yet_valid: 'The capability token is not valid yet (its not-before time is in the future).',
  auth_lifetime_too_long:
    'The capability token never expires or lives longer than this oracle accepts (at most the maximum lifetime of its kind); mint a shorter one.',
  auth_wrong_capability: 'The capability token does not grant the capability this service needs.',
  auth_issuer_mismatch: 'The invocation and the delegation are issued by different DIDs.',
  delegation_missing:
    'No delegation of this user to this oracle is stored: mint one and POST it to /delegation.',
  delegation_expired:
    'The stored delegation of this user to this oracle has expired: mint a new one and POST it to /delegation.',
};

/** A refused capability token; answered 401 with its code. */
export class AuthError extends Error {
  override name = 'AuthError';
  constructor(
    readonly code: AuthErrorCode,
    /** `detail`: a message with this case's figures, instead of the code's own (never the token itself). */
    options?: { cause?: unknown; detail?: string },
  ) {
    super(options?.detail ?? AUTH_MESSAGES[code], { cause: options?.cause });
  }
}
