import { base58btc } from '@ucanto/core';
import type { ChainGrpcClient } from '../../chain-node/grpc-client.js';
import { GRPC_METHODS } from '../../chain-node/grpc-methods.js';

/** Resolves a non-did:key DID to the did:key form of its Ed25519 keys; `[]` when it has none or is unknown. */
export type DidKeyResolver = (did: string) => Promise<string[]>;

/** The multicodec prefix of an Ed25519 public key (0xed, varint-encoded). */
const ED25519_PUB_PREFIX = Uint8Array.of(0xed, 0x01);

interface VerificationMethodLike {
  type?: string;
  publicKeyBase58?: string | undefined;
  publicKeyMultibase?: string | undefined;
  publicKeyHex?: string | undefined;
}

/** The did:key of an Ed25519 verification method of a DID document, or undefined when it is not one. */
export function didKeyOfVerificationMethod(method: VerificationMethodLike): string | undefined {
  if (!/ed25519|multikey/i.test(method.type ?? '')) return undefined;
  let raw: Uint8Array | undefined;
  try {
    if (method.publicKeyMultibase?.startsWith('z')) {
      const bytes = base58btc.decode(method.publicKeyMultibase);
      raw = bytes.length === 34 && bytes[0] === 0xed && bytes[1] === 0x01 ? bytes.subarray(2) : bytes;
    } else if (method.publicKeyBase58) {
      raw = base58btc.baseDecode(method.publicKeyBase58);
    } else if (method.publicKeyHex && /^[0-9a-f]{64}$/i.test(method.publicKeyHex)) {
      raw = Uint8Array.from(Buffer.from(method.publicKeyHex, 'hex'));
    }
  } catch {
    return undefined;
  }
  if (raw?.length !== 32) return undefined;
  const prefixed = new Uint8Array(34);
  prefixed.set(ED25519_PUB_PREFIX, 0);
  prefixed.set(raw, 2);
  return `did:key:${base58btc.encode(prefixed)}`;
}

/** The chain's IID query (`ixo.iid.v1beta1.Query/IidDocument`). */
const IID_DOCUMENT = (() => {
  const binding = GRPC_METHODS.get('ixo.iid.v1beta1.Query/IidDocument');
  if (!binding) throw new Error('the IID query is not in the generated method table');
  return binding;
})();

/** gRPC status of a missing document. */
const NOT_FOUND = 5;

/**
 * did:ixo resolution through the chain's IID query (`ixo.iid.v1beta1.Query/IidDocument`): every Ed25519 key of
 * the document (a rotated key may still sign older tokens). Answers are kept for `cacheMs`; a transport
 * failure throws (the caller answers 503, not 401).
 */
export function createIxoDidKeyResolver(
  chain: Pick<ChainGrpcClient, 'call'>,
  options: { timeoutMs: number; cacheMs?: number },
): DidKeyResolver {
  const cache = new Map<string, { keys: string[]; until: number }>();
  const cacheMs = options.cacheMs ?? 60_000;
  return async (did) => {
    if (!did.startsWith('did:ixo:')) return [];
    const hit = cache.get(did);
    if (hit && hit.until > Date.now()) return hit.keys;
    let keys: string[];
    try {
      const { response } = await chain.call(IID_DOCUMENT, { id: did }, { timeoutMs: options.timeoutMs });
      const doc = (response as { iidDocument?: { verificationMethod?: VerificationMethodLike[] } })
        .iidDocument;
      keys = (doc?.verificationMethod ?? []).flatMap((m) => didKeyOfVerificationMethod(m) ?? []);
    } catch (err) {
      if ((err as { code?: unknown }).code !== NOT_FOUND) throw err;
      keys = [];
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(did, { keys, until: Date.now() + cacheMs });
    return keys;
  };
}
