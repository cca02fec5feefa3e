import { createHash } from 'node:crypto';
import { Delegation } from '@ucanto/core';
import type { Delegation as UcanDelegation } from '@ucanto/interface';
import { capability, claim, ok, Schema } from '@ucanto/validator';
import { ORACLE_CAPABILITIES } from '../../../contracts/oracle.js';
import type { OracleIdentity } from '../identity.js';
import { AuthError } from './auth-error.js';
import type { DidKeyResolver } from './did-key-resolver.js';
import { createNativePrincipalParser } from './native-ed25519.js';

/** A token that passed every check. */
export interface VerifiedToken {
  /** The user: the token's issuer. */
  issuer: string;
  audience: string;
  /** Epoch ms; `undefined` for a token without expiry. */
  expiresAt: number | undefined;
  cid: string;
  serialized: string;
}

/** Verifies the two kinds of token of the agent service (contracts/oracle.ts ORACLE_CAPABILITIES). */
export interface TokenVerifier {
  /** An invocation: `oracle/use` on this oracle, issued by the user. Throws {@link AuthError}. */
  verifyInvocation(serialized: string): Promise<VerifiedToken>;
  /** A delegation: `oracle/act` on the user's own DID, issued by the user. Throws {@link AuthError}. */
  verifyDelegation(serialized: string): Promise<VerifiedToken>;
}

const invocationCapability = capability({ can: ORACLE_CAPABILITIES.invocation.can, with: Schema.did() });
const delegationCapability = capability({ can: ORACLE_CAPABILITIES.delegation.can, with: Schema.did() });

/**
 * The longest a token may live, from now to its expiry, by kind (ORACLE_INVOCATION_MAX_LIFETIME_S,
 * ORACLE_DELEGATION_MAX_LIFETIME_S): a token without expiry, or expiring later, is refused
 * (`auth_lifetime_too_long`), so a leaked token is useful for a bounded time.
 */
export interface TokenLifetimes {
  invocationSeconds: number;
  delegationSeconds: number;
}

/** The defaults of server/oracle/config.ts: an invocation 24 hours, a delegation 30 days. */
const DEFAULT_TOKEN_LIFETIMES: TokenLifetimes = {
  invocationSeconds: 86_400,
  delegationSeconds: 30 * 86_400,
};

/** Clock skew allowed between a client that mints a token of the maximum lifetime and this server. */
export const LIFETIME_SKEW_SECONDS = 300;

/** Longest time a verified token is trusted from the cache (tokens without expiry, revocation lists later). */
const MAX_CACHE_MS = 10 * 60_000;
const CACHE_ENTRIES = 10_000;

/**
 * ucanto's default `canIssue` lets a DID issue a capability only on its own resource (`with` = issuer). An
 * invocation names the oracle as its resource, so any user may issue `oracle/use` on this oracle's DIDs; every
 * other capability keeps the default rule.
 */
export function oracleCanIssue(audiences: ReadonlySet<string>) {
  return (cap: { can: string; with: string }, issuer: string): boolean =>
    cap.with === issuer || (cap.can === ORACLE_CAPABILITIES.invocation.can && audiences.has(cap.with));
}

/**
 * Capability-token verification with ucanto: decode (base64 CAR), audience, time bounds, capability, then the
 * signature through `@ucanto/validator` (did:key issuers locally, others through `resolveDidKey`). Each
 * failure has its own code. Verified tokens are cached (by hash) until they expire.
 */
export function createTokenVerifier(deps: {
  identity: Pick<OracleIdentity, 'signer' | 'audiences'>;
  resolveDidKey: DidKeyResolver;
  /** Most verified tokens kept; the oldest goes first. Default 10,000. */
  cacheEntries?: number;
  /** Default {@link DEFAULT_TOKEN_LIFETIMES}. */
  maxLifetimes?: TokenLifetimes;
}): TokenVerifier {
  const { identity, resolveDidKey } = deps;
  const lifetimes = deps.maxLifetimes ?? DEFAULT_TOKEN_LIFETIMES;
  const cacheEntries = deps.cacheEntries ?? CACHE_ENTRIES;
  const canIssue = oracleCanIssue(identity.audiences);
  const cache = new Map<string, { token: VerifiedToken; until: number }>();
  const principal = createNativePrincipalParser();

  const resolveDIDKey = async (did: `did:${string}:${string}`) => {
    const keys = await resolveDidKey(did);
    if (keys.length === 0) throw new AuthError('auth_unknown_issuer');
    return ok(keys as `did:key:${string}`[]);
  };

  async function verify(serialized: string, kind: 'invocation' | 'delegation'): Promise<VerifiedToken> {
    const key = `${kind}:${createHash('sha256').update(serialized).digest('base64url')}`;
    const hit = cache.get(key);
    if (hit) {
      if (hit.until > Date.now()) return hit.token;
      cache.delete(key);
    }
    const token = await decode(serialized);
    const issuer = token.issuer.did();
    const audience = token.audience.did();
    if (!identity.audiences.has(audience)) throw new AuthError('auth_wrong_audience');
    const nowSeconds = Math.floor(Date.now() / 1000);
    if (token.expiration <= nowSeconds) throw new AuthError('auth_expired');
    // No expiry (ucanto reads a null `exp` as Infinity) or one past the maximum lifetime of its kind.
    const maxSeconds = kind === 'invocation' ? lifetimes.invocationSeconds : lifetimes.delegationSeconds;
    if (
      !Number.isFinite(token.expiration) ||
      token.expiration > nowSeconds + maxSeconds + LIFETIME_SKEW_SECONDS
    )
      throw new AuthError('auth_lifetime_too_long', {
        detail: `${kind === 'invocation' ? 'An invocation' : 'A delegation'} must expire, at most ${maxSeconds} seconds from now on this oracle; mint a shorter one.`,
      });
    if (token.notBefore !== undefined && token.notBefore > nowSeconds)
      throw new AuthError('auth_not_yet_valid');

    const wanted = ORACLE_CAPABILITIES[kind];
    const grants = token.capabilities.some(
      (c) =>
        c.can === wanted.can && (kind === 'invocation' ? identity.audiences.has(c.with) : c.with === issuer),
    );
    if (!grants) throw new AuthError('auth_wrong_capability');

    // A DID-resolution transport failure throws through here: the caller answers 503, not 401.
    const result = await claim(kind === 'invocation' ? invocationCapability : delegationCapability, [token], {
      authority: identity.signer,
      principal,
      canIssue,
      resolveDIDKey,
      validateAuthorization: () => ok({}),
    });
    if (result.error) throw new AuthError(codeOf(result.error), { cause: result.error });

    const expiresAt = Number.isFinite(token.expiration) ? token.expiration * 1000 : undefined;
    const verified: VerifiedToken = { issuer, audience, expiresAt, cid: token.cid.toString(), serialized };
    if (cache.size >= cacheEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, { token: verified, until: Math.min(expiresAt ?? Infinity, Date.now() + MAX_CACHE_MS) });
    return verified;
  }

  return {
    verifyInvocation: (serialized) => verify(serialized, 'invocation'),
    verifyDelegation: (serialized) => verify(serialized, 'delegation'),
  };
}

/** Base64 (or base64url) of a CAR archive → the delegation inside, or `auth_malformed`. */
async function decode(serialized: string): Promise<UcanDelegation> {
  const text = serialized.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw new AuthError('auth_malformed');
  const extracted = await Delegation.extract(Buffer.from(text, 'base64')).catch(() => undefined);
  if (!extracted || extracted.error) throw new AuthError('auth_malformed');
  return extracted.ok;
}

/** The code of a ucanto `Unauthorized`: the first reason among its invalid proofs. */
export function codeOf(error: { invalidProofs?: { name?: string }[] }) {
  const names = new Set((error.invalidProofs ?? []).map((p) => p.name));
  if (names.has('InvalidSignature')) return 'auth_bad_signature' as const;
  if (names.has('DIDKeyResolutionError')) return 'auth_unknown_issuer' as const;
  if (names.has('Expired')) return 'auth_expired' as const;
  if (names.has('NotValidBefore')) return 'auth_not_yet_valid' as const;
  return 'auth_wrong_capability' as const;
}
