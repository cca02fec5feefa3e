import type { SerializedUcan } from '@open-oracles/oracles-client-sdk';
import { delegate } from '@ucanto/core';
import type { Signer } from '@ucanto/interface';
import { ed25519 } from '@ucanto/principal';
import { ORACLE_CAPABILITIES } from '../../contracts/oracle.js';

/**
 * The seed of the demo's user key. It is published here, so anyone can act as this user: DEVELOPMENT ONLY.
 * A real app asks the user's wallet to sign (the same `delegate` call, with the wallet's key).
 */
const DEV_USER_SEED = 'open-oracles demo user: a published key, development only';

/** The demo user's signer (a did:key), derived in the browser from {@link DEV_USER_SEED}. */
export async function demoUser(): Promise<Signer> {
  const seed = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(DEV_USER_SEED));
  return ed25519.derive(new Uint8Array(seed));
}

const TTL_SECONDS = 3600;

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * The SDK's token callbacks for a user: real UCANs signed with ucanto in the browser, addressed to the oracle
 * (the audience the SDK names), serialized as the service reads them (base64 of the CAR archive).
 */
export function ucanCallbacks(user: Signer): {
  createDelegation: (oracleDid: string) => Promise<SerializedUcan>;
  createInvocation: (oracleDid: string) => Promise<SerializedUcan>;
} {
  const mint = async (oracleDid: string, capability: { can: string; with: string }) => {
    const expiration = Math.floor(Date.now() / 1000) + TTL_SECONDS;
    const token = await delegate({
      issuer: user,
      audience: { did: () => oracleDid as `did:${string}:${string}` },
      capabilities: [capability as { can: `${string}/${string}`; with: `${string}:${string}` }],
      expiration,
    });
    const archive = await token.archive();
    if (archive.error) throw archive.error;
    return { serialized: base64(archive.ok), expiresAt: expiration * 1000 };
  };
  return {
    createDelegation: (oracleDid) =>
      mint(oracleDid, { can: ORACLE_CAPABILITIES.delegation.can, with: user.did() }),
    createInvocation: (oracleDid) =>
      mint(oracleDid, { can: ORACLE_CAPABILITIES.invocation.can, with: oracleDid }),
  };
}
