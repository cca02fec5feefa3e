import { delegate } from '@ucanto/core';
import type { Capability, Signer } from '@ucanto/interface';
import { ORACLE_CAPABILITIES } from '../../../contracts/oracle.js';

/** A minted token as clients send it: base64 of the CAR archive, and its expiry in epoch ms. */
export interface MintedToken {
  serialized: string;
  expiresAt: number;
}

/** Options of {@link mintToken}. */
export interface MintOptions {
  /** The user, or anyone (tests mint forged tokens too). */
  issuer: Signer;
  /** The DID the token is addressed to: the oracle's DID or entity DID. */
  audience: `did:${string}:${string}`;
  /** Seconds from now; negative for an expired token. */
  ttlSeconds: number;
  /** Seconds from now before which the token is not valid. */
  notBeforeSeconds?: number;
  capabilities: [Capability, ...Capability[]];
}

/** Signs a UCAN with ucanto and serializes it the way the SDK's callbacks do (`{serialized, expiresAt}`). */
export async function mintToken(options: MintOptions): Promise<MintedToken> {
  const now = Math.floor(Date.now() / 1000);
  const expiration = now + options.ttlSeconds;
  const token = await delegate({
    issuer: options.issuer,
    audience: { did: () => options.audience },
    capabilities: options.capabilities,
    expiration,
    ...(options.notBeforeSeconds === undefined ? {} : { notBefore: now + options.notBeforeSeconds }),
  });
  const archive = await token.archive();
  if (archive.error) throw archive.error;
  return { serialized: Buffer.from(archive.ok).toString('base64'), expiresAt: expiration * 1000 };
}

/** The two tokens a user presents to an oracle (contracts/oracle.ts ORACLE_CAPABILITIES). */
export async function mintUserTokens(
  user: Signer,
  oracleDid: `did:${string}:${string}`,
  ttlSeconds = 3600,
): Promise<{ userDid: string; invocation: MintedToken; delegation: MintedToken }> {
  const [invocation, delegation] = await Promise.all([
    mintToken({
      issuer: user,
      audience: oracleDid,
      ttlSeconds,
      capabilities: [{ can: ORACLE_CAPABILITIES.invocation.can, with: oracleDid }],
    }),
    mintToken({
      issuer: user,
      audience: oracleDid,
      ttlSeconds,
      capabilities: [{ can: ORACLE_CAPABILITIES.delegation.can, with: user.did() }],
    }),
  ]);
  return { userDid: user.did(), invocation, delegation };
}
