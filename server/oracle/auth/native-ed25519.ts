import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { ed25519, Verifier as UcantoVerifier } from '@ucanto/principal';
import type { DID, PrincipalParser, Verifier } from '@ucanto/interface';

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the 32 raw key bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Parsed keys kept by default, by DID (the oldest goes first): a user's tokens are checked with one key again and again. */
const KEYS_KEPT = 10_000;

type EdDSA = typeof ed25519.Verifier.signatureCode;

/**
 * A did:key Ed25519 verifier that checks signatures with Node's crypto (OpenSSL) instead of ucanto's
 * pure-JavaScript `@noble/ed25519`: the same answer (RFC 8032 verification of the same bytes). Verifying a new
 * user's two tokens takes 3.1-3.3 ms of the server's thread with noble and 0.7-0.8 ms here; noble took 11 % of
 * the oracle's CPU while 1,000 new users opened streams (the oracle bench). Everything but `verify` is ucanto's
 * own key.
 */
class NativeEd25519Verifier<ID extends DID> implements Verifier<ID, EdDSA> {
  readonly signatureCode: EdDSA = ed25519.Verifier.signatureCode;
  readonly signatureAlgorithm = ed25519.Verifier.signatureAlgorithm;

  constructor(
    private readonly id: ID,
    private readonly inner: ed25519.Verifier.EdVerifier,
    private readonly key: KeyObject,
  ) {}

  did(): ID {
    return this.id;
  }

  toDIDKey(): `did:key:${string}` {
    return this.inner.toDIDKey();
  }

  verify(payload: Uint8Array, signature: { code: number; raw: Uint8Array }): boolean {
    // A signature of another algorithm is not ours to check; one of the wrong length verifies false.
    return signature.code === this.signatureCode && verifySignature(null, payload, this.key, signature.raw);
  }

  withDID<Other extends DID>(id: Other): Verifier<Other, EdDSA> {
    return new NativeEd25519Verifier(id, this.inner, this.key);
  }
}

/**
 * ucanto's principal parser (Ed25519 and RSA did:keys) with Ed25519 signatures checked natively; for
 * `claim`/`access`'s `principal` option.
 */
export function createNativePrincipalParser(options: { keysKept?: number } = {}): PrincipalParser {
  const keysKept = options.keysKept ?? KEYS_KEPT;
  const keys = new Map<string, Verifier>();
  return {
    parse(did) {
      const kept = keys.get(did);
      if (kept) return kept;
      let edKey: ed25519.Verifier.EdVerifier;
      try {
        edKey = ed25519.Verifier.parse(did) as ed25519.Verifier.EdVerifier;
      } catch {
        return UcantoVerifier.parse(did); // not an Ed25519 did:key: RSA, or ucanto's own error
      }
      const key = createPublicKey({
        // The did:key's bytes: the multicodec tag of an Ed25519 public key, then its 32 bytes.
        key: Buffer.concat([ED25519_SPKI_PREFIX, ed25519.Verifier.encode(edKey).subarray(-32)]),
        format: 'der',
        type: 'spki',
      });
      const verifier = new NativeEd25519Verifier(edKey.did(), edKey, key);
      if (keys.size >= keysKept) keys.delete(keys.keys().next().value as string);
      keys.set(did, verifier);
      return verifier;
    },
  };
}
