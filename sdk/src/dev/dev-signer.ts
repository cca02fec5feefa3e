import { delegate } from '@ucanto/core';
import { ed25519 } from '@ucanto/principal';
import { ORACLE_CAPABILITIES } from '../../../contracts/oracle.js';
import type { SerializedUcan } from '../auth/delegation-storage.js';

/** The published seed of the default development user: anyone can act as this user. DEVELOPMENT ONLY. */
export const DEV_USER_SEED = 'open-oracles development user: a published key, development only';

/** Options of {@link createDevSigner}. */
export interface DevSignerOptions {
  /**
   * Any text; the same seed gives the same user (a did:key) on every page load. Default
   * {@link DEV_USER_SEED}. Published seeds are development only: whoever knows one can sign as that user.
   */
  seed?: string;
  /** Lifetime of each token, seconds (default 3600). */
  ttlSeconds?: number;
}

/** A development user and the provider's token callbacks, signing real UCANs in the page. */
export interface DevSigner {
  /** The user's DID (`did:key:…`): pass it as `initialWallet.did`. */
  did: string;
  /** A delegation `oracle/act` on the user's DID, to the oracle (the audience passed in). */
  createDelegation: (oracleDid: string) => Promise<SerializedUcan>;
  /** An invocation `oracle/use` on the oracle's DID. */
  createInvocation: (oracleDid: string) => Promise<SerializedUcan>;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * A signer for a development server (`npm start`): an Ed25519 user key derived from a seed, and
 * `createDelegation` / `createInvocation` that mint the UCANs the oracle verifies (ucanto, serialized as
 * base64 of the CAR archive). **Development only**: a real app asks the user's wallet to sign. Needs the
 * optional peers `@ucanto/core` and `@ucanto/principal`.
 *
 * @example
 * import { createDevSigner } from '@open-oracles/oracles-client-sdk/dev';
 * const user = await createDevSigner();
 * <OraclesProvider initialWallet={{ address: 'ixo1dev', did: user.did, matrix: { accessToken: '', homeServer: '' } }}
 *   createDelegation={user.createDelegation} createInvocation={user.createInvocation} … />
 */
export async function createDevSigner(options: DevSignerOptions = {}): Promise<DevSigner> {
  const seed = await globalThis.crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(options.seed ?? DEV_USER_SEED),
  );
  const user = await ed25519.derive(new Uint8Array(seed));
  const ttl = options.ttlSeconds ?? 3600;
  const mint = async (oracleDid: string, can: string, resource: string): Promise<SerializedUcan> => {
    const expiration = Math.floor(Date.now() / 1000) + ttl;
    const token = await delegate({
      issuer: user,
      audience: { did: () => oracleDid as `did:${string}:${string}` },
      capabilities: [{ can: can as `${string}/${string}`, with: resource as `${string}:${string}` }],
      expiration,
    });
    const archive = await token.archive();
    if (archive.error) throw archive.error;
    return { serialized: base64(archive.ok), expiresAt: expiration * 1000 };
  };
  return {
    did: user.did(),
    createDelegation: (oracleDid) => mint(oracleDid, ORACLE_CAPABILITIES.delegation.can, user.did()),
    createInvocation: (oracleDid) => mint(oracleDid, ORACLE_CAPABILITIES.invocation.can, oracleDid),
  };
}
