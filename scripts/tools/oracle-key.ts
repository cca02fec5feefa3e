/**
 * Prints a new Ed25519 signing key for the oracle, in the form ORACLE_SIGNING_KEY takes, and its did:key:
 *
 *   npm run -s oracle:key
 */
import { ed25519 } from '@ucanto/principal';

const signer = await ed25519.generate();
console.log(`ORACLE_SIGNING_KEY=${ed25519.format(signer)}`);
console.log(`# its DID: ${signer.did()}`);
