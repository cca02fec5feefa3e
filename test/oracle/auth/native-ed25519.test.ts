// The oracle's Ed25519 did:key verifier (server/oracle/auth/native-ed25519.ts) checks signatures with Node's
// crypto instead of ucanto's JavaScript implementation: it must give ucanto's answer for every signature,
// good or bad, and keep the rest of the key (its DID, did:key, withDID) as ucanto's.
import { randomBytes } from 'node:crypto';
import { ed25519, Verifier as UcantoVerifier } from '@ucanto/principal';
import { describe, expect, it } from 'vitest';
import { createNativePrincipalParser } from '../../../server/oracle/auth/native-ed25519.js';

describe('createNativePrincipalParser', () => {
  it('agrees with ucanto on good signatures, altered payloads, altered signatures and foreign keys', async () => {
    const parser = createNativePrincipalParser();
    const signer = await ed25519.generate();
    const stranger = await ed25519.generate();
    const native = parser.parse(signer.did());
    const reference = UcantoVerifier.parse(signer.did());
    for (let i = 0; i < 40; i++) {
      const payload = new Uint8Array(randomBytes(1 + ((i * 37) % 300)));
      const signature = await signer.sign(payload);
      const altered = payload.slice();
      altered[i % altered.length] = (altered[i % altered.length] ?? 0) ^ 1;
      const badRaw = signature.raw.slice();
      badRaw[i % 64] = (badRaw[i % 64] ?? 0) ^ 0x80;
      const badSignature = { code: signature.code, raw: badRaw } as typeof signature;
      const foreign = await stranger.sign(payload);
      const cases = [
        [payload, signature],
        [altered, signature],
        [payload, badSignature],
        [payload, foreign],
      ] as const;
      const answers = cases.map(([p, s]) => native.verify(p, s));
      // ucanto's JavaScript verifier throws for a signature whose first half is not a curve point (counted
      // here as not verifying); ours answers false.
      const expected = await Promise.all(
        cases.map(([p, s]) => Promise.resolve(reference.verify(p, s)).catch(() => false)),
      );
      expect(answers).toEqual(expected);
      expect(answers).toEqual([true, false, false, false]);
    }
  });

  it('a valid Ed25519 signature labelled as another algorithm, or of the wrong length, does not verify', async () => {
    const signer = await ed25519.generate();
    const native = createNativePrincipalParser().parse(signer.did());
    const payload = new Uint8Array([1, 2, 3]);
    const signature = await signer.sign(payload);
    const as = (code: number, raw: Uint8Array) => ({ code, raw }) as unknown as typeof signature;
    expect(native.verify(payload, as(signature.code, signature.raw))).toBe(true);
    expect(native.verify(payload, as(0x1205, signature.raw))).toBe(false);
    expect(native.verify(payload, as(signature.code, signature.raw.slice(0, 63)))).toBe(false);
    expect(native.verify(payload, as(signature.code, new Uint8Array(0)))).toBe(false);
  });

  it('keeps ucanto’s DID, did:key and withDID; other DIDs fail as they do in ucanto', async () => {
    const signer = await ed25519.generate();
    const parser = createNativePrincipalParser();
    const native = parser.parse(signer.did());
    expect(native.did()).toBe(signer.did());
    expect(native.toDIDKey()).toBe(signer.did());
    const wrapped = native.withDID('did:ixo:entity:abc');
    expect(wrapped.did()).toBe('did:ixo:entity:abc');
    expect(wrapped.toDIDKey()).toBe(signer.did());
    const payload = new Uint8Array([9, 9, 9]);
    expect(await wrapped.verify(payload, await signer.sign(payload))).toBe(true);
    expect(() => parser.parse('did:ixo:entity:abc')).toThrow(/Unsupported did/);
    expect(() => UcantoVerifier.parse('did:ixo:entity:abc')).toThrow(/Unsupported did/);
    // The same key object again for the same DID.
    expect(parser.parse(signer.did())).toBe(native);
  });

  it('keeps at most keysKept parsed keys, the oldest going first', async () => {
    const parser = createNativePrincipalParser({ keysKept: 2 });
    const [a, b, c] = await Promise.all([ed25519.generate(), ed25519.generate(), ed25519.generate()]);
    const first = parser.parse(a.did());
    parser.parse(b.did());
    expect(parser.parse(a.did())).toBe(first);
    const third = parser.parse(c.did());
    // c pushed a out: a is parsed again (a new key object, which pushes b out), c is still kept.
    expect(parser.parse(a.did())).not.toBe(first);
    expect(parser.parse(c.did())).toBe(third);
  });
});
