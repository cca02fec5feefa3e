import { createHash } from 'node:crypto';
import { ed25519 } from '@ucanto/principal';
import type { Signer } from '@ucanto/interface';

/** The did:ixo user of the fixture chain (fixtures/chain/entities.yaml), whose key is public: tests only. */
export const FIXTURE_USER_DID = 'did:ixo:ixo1fixtureuser0dev0only0q2w3e4r5t6y7u8i9';

/** The fixture user's signer: its key derived from the published seed, acting as its did:ixo. */
export async function fixtureUser(): Promise<Signer> {
  const seed = createHash('sha256').update('open-oracles fixture user: development and tests only').digest();
  const key = await ed25519.derive(seed);
  return key.withDID(FIXTURE_USER_DID);
}
