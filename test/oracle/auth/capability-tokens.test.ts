import { Delegation } from '@ucanto/core';
import type { Signer } from '@ucanto/interface';
import { ed25519 } from '@ucanto/principal';
import { base58btc } from 'multiformats/bases/base58';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ORACLE_CAPABILITIES } from '../../../contracts/oracle.js';
import { AuthError } from '../../../server/oracle/auth/auth-error.js';
import { authenticate, tokensFromHeaders } from '../../../server/oracle/auth/authenticate.js';
import {
  createIxoDidKeyResolver,
  didKeyOfVerificationMethod,
} from '../../../server/oracle/auth/did-key-resolver.js';
import { mintToken, mintUserTokens, type MintedToken } from '../../../server/oracle/auth/mint.js';
import {
  codeOf,
  createTokenVerifier,
  oracleCanIssue,
  type VerifiedToken,
} from '../../../server/oracle/auth/token-verifier.js';

// The capability-token code (server/oracle/auth) in isolation: what each check answers, at its boundaries. Written
// for the survivors of `npm run test:mutation -- oracle-auth` (issue 26): the end-to-end tests start their app
// and mint their tokens once per file, before Stryker switches a mutant on, so mistakes in minting, header
// parsing, the caches and the DID-document keys went unnoticed. Each test here mints and verifies inside itself.

type Did = `did:${string}:${string}`;

let oracle: Signer;
let user: Signer;
let oracleDid: Did;

beforeAll(async () => {
  oracle = await ed25519.generate();
  user = await ed25519.generate();
  oracleDid = oracle.did();
});
afterEach(() => vi.useRealTimers());

/** A verifier of this file's oracle; `resolved` counts the calls of its DID resolver, by DID. */
function verifierOf(options: { keys?: Record<string, string[]>; cacheEntries?: number } = {}) {
  const resolved = new Map<string, number>();
  const verifier = createTokenVerifier({
    identity: { signer: oracle, audiences: new Set([oracleDid]) },
    resolveDidKey: (did) => {
      resolved.set(did, (resolved.get(did) ?? 0) + 1);
      return Promise.resolve(options.keys?.[did] ?? []);
    },
    ...(options.cacheEntries === undefined ? {} : { cacheEntries: options.cacheEntries }),
  });
  return { verifier, resolved };
}

const invocationOf = (issuer: Signer, ttlSeconds = 600, notBeforeSeconds?: number): Promise<MintedToken> =>
  mintToken({
    issuer,
    audience: oracleDid,
    ttlSeconds,
    ...(notBeforeSeconds === undefined ? {} : { notBeforeSeconds }),
    capabilities: [{ can: ORACLE_CAPABILITIES.invocation.can, with: oracleDid }],
  });

async function codeOfFailure(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AuthError);
  return (err as AuthError).code;
}

/** A did:ixo user whose document lists `user`'s key. */
async function ixoUser(name: string): Promise<{ signer: Signer; did: Did; didKey: string }> {
  const key = await ed25519.generate();
  const did = `did:ixo:${name}` as Did;
  return { signer: key.withDID(did), did, didKey: key.did() };
}

describe('minting', () => {
  it('mintToken: issuer, audience, capabilities, expiry and not-before as asked', async () => {
    const before = Math.floor(Date.now() / 1000);
    const minted = await mintToken({
      issuer: user,
      audience: oracleDid,
      ttlSeconds: 120,
      notBeforeSeconds: 30,
      capabilities: [{ can: ORACLE_CAPABILITIES.invocation.can, with: oracleDid }],
    });
    expect(minted.serialized).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const { ok: token } = await Delegation.extract(Buffer.from(minted.serialized, 'base64'));
    expect(token).toBeDefined();
    expect(token?.issuer.did()).toBe(user.did());
    expect(token?.audience.did()).toBe(oracleDid);
    expect(token?.capabilities).toEqual([{ can: ORACLE_CAPABILITIES.invocation.can, with: oracleDid }]);
    expect(minted.expiresAt).toBe((token?.expiration ?? 0) * 1000);
    expect(token?.expiration).toBeGreaterThanOrEqual(before + 120);
    expect(token?.expiration).toBeLessThanOrEqual(before + 121);
    expect(token?.notBefore).toBe((token?.expiration ?? 0) - 90);
  });

  it('mintToken without notBeforeSeconds: no not-before', async () => {
    const minted = await invocationOf(user);
    const { ok: token } = await Delegation.extract(Buffer.from(minted.serialized, 'base64'));
    expect(token?.notBefore).toBeUndefined();
  });

  it('mintUserTokens: an invocation on the oracle and a delegation on the user, both accepted', async () => {
    const tokens = await mintUserTokens(user, oracleDid, 60);
    expect(tokens.userDid).toBe(user.did());
    const { verifier } = verifierOf();
    const invocation = await verifier.verifyInvocation(tokens.invocation.serialized);
    const delegation = await verifier.verifyDelegation(tokens.delegation.serialized);
    expect(invocation).toMatchObject({ issuer: user.did(), audience: oracleDid });
    expect(delegation).toMatchObject({ issuer: user.did(), audience: oracleDid });
    const { ok: inv } = await Delegation.extract(Buffer.from(tokens.invocation.serialized, 'base64'));
    const { ok: del } = await Delegation.extract(Buffer.from(tokens.delegation.serialized, 'base64'));
    expect(inv?.capabilities).toEqual([{ can: ORACLE_CAPABILITIES.invocation.can, with: oracleDid }]);
    expect(del?.capabilities).toEqual([{ can: ORACLE_CAPABILITIES.delegation.can, with: user.did() }]);
    // Each token is refused where the other belongs.
    expect(await codeOfFailure(verifier.verifyInvocation(tokens.delegation.serialized))).toBe(
      'auth_wrong_capability',
    );
    expect(await codeOfFailure(verifier.verifyDelegation(tokens.invocation.serialized))).toBe(
      'auth_wrong_capability',
    );
  });
});

describe('tokensFromHeaders', () => {
  const read = (headers: Record<string, string | string[]>) => {
    try {
      return tokensFromHeaders(headers);
    } catch (err) {
      return (err as AuthError).code;
    }
  };

  it('reads Bearer <token> (any case, any run of spaces, trailing spaces) with or without X-Auth-Type: ucan', () => {
    expect(read({ authorization: 'Bearer abc' })).toEqual({ invocation: 'abc', delegation: undefined });
    expect(read({ authorization: 'bearer   abc  ', 'x-auth-type': 'UCAN' })).toEqual({
      invocation: 'abc',
      delegation: undefined,
    });
    expect(read({ authorization: 'Bearer\tabc' })).toEqual({ invocation: 'abc', delegation: undefined });
  });

  it('refuses anything else in Authorization as auth_malformed', () => {
    for (const authorization of [
      'Bearer',
      'Bearer ',
      'Basic abc',
      'xBearer abc',
      'Bearerabc',
      'Bearer a b',
    ]) {
      expect(read({ authorization }), authorization).toBe('auth_malformed');
    }
    expect(read({ authorization: 'Bearer abc', 'x-auth-type': 'jwt' })).toBe('auth_malformed');
    expect(read({ authorization: 'Bearer abc', 'x-auth-type': ['ucan', 'ucan'] })).toBe('auth_malformed');
  });

  it('an empty or absent Authorization is no invocation; X-Auth-Type alone means nothing', () => {
    expect(read({ authorization: '', 'x-auth-type': 'jwt' })).toEqual({
      invocation: undefined,
      delegation: undefined,
    });
    expect(read({})).toEqual({ invocation: undefined, delegation: undefined });
  });

  it('x-ucan-delegation: read as is; empty is none; repeated is auth_malformed', () => {
    expect(read({ 'x-ucan-delegation': 'def' })).toEqual({ invocation: undefined, delegation: 'def' });
    expect(read({ 'x-ucan-delegation': '' })).toEqual({ invocation: undefined, delegation: undefined });
    expect(read({ 'x-ucan-delegation': ['a', 'b'] })).toBe('auth_malformed');
  });
});

describe('authenticate', () => {
  it('no token → auth_missing; the user is the issuer of whichever token came', async () => {
    const { verifier } = verifierOf();
    expect(
      await codeOfFailure(authenticate({ invocation: undefined, delegation: undefined }, verifier)),
    ).toBe('auth_missing');
    const tokens = await mintUserTokens(user, oracleDid);
    const onlyDelegation = await authenticate(
      { invocation: undefined, delegation: tokens.delegation.serialized },
      verifier,
    );
    expect(onlyDelegation.userDid).toBe(user.did());
    expect(onlyDelegation.invocation).toBeUndefined();
    expect(onlyDelegation.delegation?.issuer).toBe(user.did());
    const both = await authenticate(
      { invocation: tokens.invocation.serialized, delegation: tokens.delegation.serialized },
      verifier,
    );
    expect(both.userDid).toBe(user.did());
    expect(both.invocation?.serialized).toBe(tokens.invocation.serialized);
    expect(both.delegation?.serialized).toBe(tokens.delegation.serialized);
  });

  it('an invocation and a delegation of two users → auth_issuer_mismatch', async () => {
    const { verifier } = verifierOf();
    const other = await ed25519.generate();
    const mine = await mintUserTokens(user, oracleDid);
    const theirs = await mintUserTokens(other, oracleDid);
    expect(
      await codeOfFailure(
        authenticate(
          { invocation: mine.invocation.serialized, delegation: theirs.delegation.serialized },
          verifier,
        ),
      ),
    ).toBe('auth_issuer_mismatch');
  });
});

describe('token verifier', () => {
  it('time bounds: not-before in the future, or this very second → auth_not_yet_valid; passed → accepted', async () => {
    const { verifier } = verifierOf();
    expect(
      await codeOfFailure(verifier.verifyInvocation((await invocationOf(user, 600, 60)).serialized)),
    ).toBe('auth_not_yet_valid');
    const now = await invocationOf(user, 600, 0);
    const { ok: token } = await Delegation.extract(Buffer.from(now.serialized, 'base64'));
    const notBefore = (token?.notBefore ?? 0) * 1000;
    // ucanto's rule: valid once the not-before second has passed.
    vi.useFakeTimers({ toFake: ['Date'], now: notBefore + 999 });
    expect(await codeOfFailure(verifier.verifyInvocation(now.serialized))).toBe('auth_not_yet_valid');
    vi.setSystemTime(notBefore + 1000);
    await expect(verifier.verifyInvocation(now.serialized)).resolves.toMatchObject({ issuer: user.did() });
    vi.useRealTimers();
    const past = await invocationOf(user, 600, -60);
    await expect(verifier.verifyInvocation(past.serialized)).resolves.toMatchObject({ issuer: user.did() });
  });

  it('expiry: a token is refused from the second of its expiry on, cached or not', async () => {
    const minted = await invocationOf(user, 60);
    vi.useFakeTimers({ toFake: ['Date'], now: minted.expiresAt });
    expect(await codeOfFailure(verifierOf().verifier.verifyInvocation(minted.serialized))).toBe(
      'auth_expired',
    );
    vi.useRealTimers();
    const { verifier } = verifierOf();
    const verified = await verifier.verifyInvocation(minted.serialized);
    expect(verified.expiresAt).toBe(minted.expiresAt);
    vi.useFakeTimers({ toFake: ['Date'], now: minted.expiresAt });
    expect(await codeOfFailure(verifier.verifyInvocation(minted.serialized))).toBe('auth_expired');
  });

  it('a token carrying other capabilities beside the one needed is accepted', async () => {
    const minted = await mintToken({
      issuer: user,
      audience: oracleDid,
      ttlSeconds: 600,
      capabilities: [
        { can: 'store/add', with: user.did() },
        { can: ORACLE_CAPABILITIES.invocation.can, with: oracleDid },
      ],
    });
    await expect(verifierOf().verifier.verifyInvocation(minted.serialized)).resolves.toMatchObject({
      issuer: user.did(),
    });
  });

  it('the capability on another resource → auth_wrong_capability', async () => {
    const onUser = await mintToken({
      issuer: user,
      audience: oracleDid,
      ttlSeconds: 600,
      capabilities: [{ can: ORACLE_CAPABILITIES.invocation.can, with: user.did() }],
    });
    expect(await codeOfFailure(verifierOf().verifier.verifyInvocation(onUser.serialized))).toBe(
      'auth_wrong_capability',
    );
    const otherUser = await ed25519.generate();
    const onOther = await mintToken({
      issuer: user,
      audience: oracleDid,
      ttlSeconds: 600,
      capabilities: [{ can: ORACLE_CAPABILITIES.delegation.can, with: otherUser.did() }],
    });
    expect(await codeOfFailure(verifierOf().verifier.verifyDelegation(onOther.serialized))).toBe(
      'auth_wrong_capability',
    );
  });

  it('serialized forms: surrounding whitespace is ignored; anything but base64 is auth_malformed', async () => {
    const minted = await invocationOf(user);
    const { verifier } = verifierOf();
    await expect(verifier.verifyInvocation(`  ${minted.serialized}\n`)).resolves.toMatchObject({
      issuer: user.did(),
    });
    for (const bad of [`*${minted.serialized}`, `${minted.serialized}*`, `${minted.serialized}===`, '']) {
      expect(await codeOfFailure(verifier.verifyInvocation(bad)), bad.slice(0, 4)).toBe('auth_malformed');
    }
  });

  it("a forged signature → auth_bad_signature, with ucanto's reason as the cause", async () => {
    const minted = await invocationOf(user);
    const other = await ed25519.generate();
    // The other key's signature under the user's DID.
    const forged = await invocationOf(other.withDID(user.did()));
    const err = await verifierOf()
      .verifier.verifyInvocation(forged.serialized)
      .catch((e: unknown) => e as AuthError);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).code).toBe('auth_bad_signature');
    expect((err as AuthError).cause).toBeDefined();
    expect((err as AuthError).name).toBe('AuthError');
    await expect(verifierOf().verifier.verifyInvocation(minted.serialized)).resolves.toBeDefined();
  });

  it('did:ixo issuers: resolved through the resolver; no key → auth_unknown_issuer', async () => {
    const ixo = await ixoUser('alice');
    const minted = await invocationOf(ixo.signer);
    const known = verifierOf({ keys: { [ixo.did]: [ixo.didKey] } });
    await expect(known.verifier.verifyInvocation(minted.serialized)).resolves.toMatchObject({
      issuer: ixo.did,
    });
    const unknown = verifierOf();
    expect(await codeOfFailure(unknown.verifier.verifyInvocation(minted.serialized))).toBe(
      'auth_unknown_issuer',
    );
  });

  describe('the cache of verified tokens', () => {
    it('a verified token is answered from the cache (its issuer is not resolved again), per token', async () => {
      const a = await ixoUser('a');
      const b = await ixoUser('b');
      const { verifier, resolved } = verifierOf({ keys: { [a.did]: [a.didKey], [b.did]: [b.didKey] } });
      const tokenA = await invocationOf(a.signer);
      const tokenB = await invocationOf(b.signer);
      const first = await verifier.verifyInvocation(tokenA.serialized);
      const again = await verifier.verifyInvocation(tokenA.serialized);
      expect(again).toBe(first);
      expect(resolved.get(a.did)).toBe(1);
      // Another token is its own entry, never the cached one of another user.
      const other: VerifiedToken = await verifier.verifyInvocation(tokenB.serialized);
      expect(other.issuer).toBe(b.did);
      expect(other.serialized).toBe(tokenB.serialized);
      expect(resolved.get(b.did)).toBe(1);
    });

    it('keeps a token ten minutes at most, however long it lives', async () => {
      const a = await ixoUser('long');
      const { verifier, resolved } = verifierOf({ keys: { [a.did]: [a.didKey] } });
      const token = await invocationOf(a.signer, 3600);
      const t0 = Date.now();
      vi.useFakeTimers({ toFake: ['Date'], now: t0 });
      await verifier.verifyInvocation(token.serialized);
      vi.setSystemTime(t0 + 10 * 60_000 - 1000);
      await verifier.verifyInvocation(token.serialized);
      expect(resolved.get(a.did)).toBe(1);
      vi.setSystemTime(t0 + 10 * 60_000 + 1000);
      await verifier.verifyInvocation(token.serialized);
      expect(resolved.get(a.did)).toBe(2);
    });

    it('holds at most cacheEntries tokens, dropping the oldest first', async () => {
      const users = await Promise.all(['c1', 'c2', 'c3'].map((n) => ixoUser(n)));
      const keys = Object.fromEntries(users.map((u) => [u.did, [u.didKey]]));
      const { verifier, resolved } = verifierOf({ keys, cacheEntries: 2 });
      const tokens = await Promise.all(users.map((u) => invocationOf(u.signer)));
      const verify = (i: number): Promise<unknown> => verifier.verifyInvocation(tokens[i]?.serialized ?? '');
      await verify(0);
      await verify(1);
      await verify(1);
      expect(resolved.get(users[1]?.did ?? '')).toBe(1);
      await verify(2); // full: the first token goes
      await verify(1);
      await verify(2);
      expect([0, 1, 2].map((i) => resolved.get(users[i]?.did ?? ''))).toEqual([1, 1, 1]);
      await verify(0);
      expect(resolved.get(users[0]?.did ?? '')).toBe(2);
    });
  });

  it("codeOf: the first reason among ucanto's invalid proofs, in order of precedence", () => {
    const of = (...names: string[]) => codeOf({ invalidProofs: names.map((name) => ({ name })) });
    expect(of('Expired', 'InvalidSignature')).toBe('auth_bad_signature');
    expect(of('Expired', 'DIDKeyResolutionError')).toBe('auth_unknown_issuer');
    expect(of('NotValidBefore', 'Expired')).toBe('auth_expired');
    expect(of('NotValidBefore')).toBe('auth_not_yet_valid');
    expect(of('UnknownCapability')).toBe('auth_wrong_capability');
    expect(codeOf({})).toBe('auth_wrong_capability');
  });

  it("oracleCanIssue: oracle/use on one of the oracle's DIDs by anyone; anything else only on one's own DID", () => {
    const canIssue = oracleCanIssue(new Set([oracleDid]));
    const someone = 'did:key:z6MkSomeone';
    expect(canIssue({ can: ORACLE_CAPABILITIES.invocation.can, with: oracleDid }, someone)).toBe(true);
    expect(canIssue({ can: ORACLE_CAPABILITIES.invocation.can, with: 'did:key:z6MkOther' }, someone)).toBe(
      false,
    );
    expect(canIssue({ can: ORACLE_CAPABILITIES.delegation.can, with: oracleDid }, someone)).toBe(false);
    expect(canIssue({ can: ORACLE_CAPABILITIES.delegation.can, with: someone }, someone)).toBe(true);
  });
});

describe('did:ixo documents', () => {
  let raw: Uint8Array;
  let expected: string;
  beforeAll(async () => {
    const key = await ed25519.generate();
    expected = key.did();
    // did:key:z + base58btc(0xed 0x01 + 32 key bytes)
    raw = base58btc.decode(expected.slice('did:key:'.length)).subarray(2);
  });
  const prefixed = (bytes: Uint8Array) => Uint8Array.from([0xed, 0x01, ...bytes]);

  it('every spelling of an Ed25519 key gives the same did:key', () => {
    const forms = [
      { type: 'Ed25519VerificationKey2018', publicKeyBase58: base58btc.baseEncode(raw) },
      { type: 'Ed25519VerificationKey2020', publicKeyMultibase: base58btc.encode(prefixed(raw)) },
      { type: 'Multikey', publicKeyMultibase: base58btc.encode(raw) },
      { type: 'ed25519verificationkey2018', publicKeyHex: Buffer.from(raw).toString('hex') },
      { type: 'Ed25519VerificationKey2018', publicKeyHex: Buffer.from(raw).toString('hex').toUpperCase() },
      // Not multibase ('m' is base64): the base58 field is used.
      {
        type: 'Ed25519VerificationKey2018',
        publicKeyMultibase: 'mAAAA',
        publicKeyBase58: base58btc.baseEncode(raw),
      },
    ];
    for (const form of forms) expect(didKeyOfVerificationMethod(form), JSON.stringify(form)).toBe(expected);
    // A bare 32-byte key that happens to begin with the prefix's bytes is not mistaken for a prefixed one.
    const lookalike = Uint8Array.from([0xed, 0x01, ...raw.subarray(2)]);
    expect(
      didKeyOfVerificationMethod({ type: 'Multikey', publicKeyMultibase: base58btc.encode(lookalike) }),
    ).toBe(`did:key:${base58btc.encode(prefixed(lookalike))}`);
  });

  it('anything else is no key', () => {
    const hex = Buffer.from(raw).toString('hex');
    const none = [
      { type: 'EcdsaSecp256k1VerificationKey2019', publicKeyBase58: base58btc.baseEncode(raw) },
      { publicKeyBase58: base58btc.baseEncode(raw) },
      { type: 'Ed25519VerificationKey2018' },
      { type: 'Ed25519VerificationKey2018', publicKeyHex: hex.slice(2) },
      { type: 'Ed25519VerificationKey2018', publicKeyHex: `${hex}00` },
      { type: 'Ed25519VerificationKey2018', publicKeyHex: `zz${hex.slice(2)}` },
      { type: 'Ed25519VerificationKey2018', publicKeyBase58: base58btc.baseEncode(raw.subarray(1)) },
      { type: 'Ed25519VerificationKey2018', publicKeyBase58: '0OIl' }, // not base58
      // 0xed 0x01 + 31 bytes: 33 bytes, neither a prefixed nor a bare key.
      { type: 'Multikey', publicKeyMultibase: base58btc.encode(prefixed(raw.subarray(1))) },
      // 34 bytes with another prefix: not stripped, so not 32.
      { type: 'Multikey', publicKeyMultibase: base58btc.encode(Uint8Array.from([0xe7, 0x01, ...raw])) },
      { type: 'Multikey', publicKeyMultibase: base58btc.encode(Uint8Array.from([0xed, 0x02, ...raw])) },
    ];
    for (const form of none) expect(didKeyOfVerificationMethod(form), JSON.stringify(form)).toBeUndefined();
  });

  describe('createIxoDidKeyResolver', () => {
    /** A chain whose IID query answers from `documents` (gRPC NOT_FOUND for the others), counting calls. */
    function chainOf(documents: Record<string, unknown>, fail?: Error) {
      const calls: string[] = [];
      return {
        calls,
        chain: {
          call: (_method: unknown, request: { id: string }) => {
            calls.push(request.id);
            if (fail) return Promise.reject(fail);
            if (request.id === 'did:ixo:nodoc') return Promise.resolve({ response: {} });
            const doc = documents[request.id];
            if (doc === undefined) return Promise.reject(Object.assign(new Error('not found'), { code: 5 }));
            return Promise.resolve({ response: { iidDocument: doc } });
          },
        } as unknown as Parameters<typeof createIxoDidKeyResolver>[0],
      };
    }
    const doc = () => ({
      verificationMethod: [
        { type: 'Ed25519VerificationKey2018', publicKeyBase58: base58btc.baseEncode(raw) },
        { type: 'EcdsaSecp256k1VerificationKey2019', publicKeyBase58: 'abc' },
      ],
    });

    it('did:ixo: the Ed25519 keys of its document, kept for cacheMs; other methods are not asked', async () => {
      const { chain, calls } = chainOf({
        'did:ixo:a': doc(),
        'did:ixo:empty': {},
        'did:ixo:nomethods': { id: 'x' },
      });
      const resolve = createIxoDidKeyResolver(chain, { timeoutMs: 100, cacheMs: 1000 });
      expect(await resolve('did:key:z6Mk')).toEqual([]);
      expect(await resolve('did:web:example.org')).toEqual([]);
      expect(calls).toEqual([]);
      const t0 = Date.now();
      vi.useFakeTimers({ toFake: ['Date'], now: t0 });
      expect(await resolve('did:ixo:a')).toEqual([expected]);
      vi.setSystemTime(t0 + 999);
      expect(await resolve('did:ixo:a')).toEqual([expected]);
      expect(calls).toEqual(['did:ixo:a']);
      vi.setSystemTime(t0 + 1000);
      expect(await resolve('did:ixo:a')).toEqual([expected]);
      expect(calls).toEqual(['did:ixo:a', 'did:ixo:a']);
      expect(await resolve('did:ixo:empty')).toEqual([]);
      expect(await resolve('did:ixo:nomethods')).toEqual([]);
      expect(await resolve('did:ixo:nodoc')).toEqual([]);
    });

    it('an unknown DID is no key (and cached); a transport failure throws and is not cached', async () => {
      const { chain, calls } = chainOf({});
      const resolve = createIxoDidKeyResolver(chain, { timeoutMs: 100 });
      expect(await resolve('did:ixo:nobody')).toEqual([]);
      expect(await resolve('did:ixo:nobody')).toEqual([]);
      expect(calls).toEqual(['did:ixo:nobody']);
      const down = chainOf({}, Object.assign(new Error('unavailable'), { code: 14 }));
      const resolveDown = createIxoDidKeyResolver(down.chain, { timeoutMs: 100 });
      await expect(resolveDown('did:ixo:a')).rejects.toThrow('unavailable');
      await expect(resolveDown('did:ixo:a')).rejects.toThrow('unavailable');
      expect(down.calls).toHaveLength(2);
    });

    it('the cache holds 10,001 DIDs: the next one empties it', async () => {
      const { chain, calls } = chainOf({});
      const resolve = createIxoDidKeyResolver(chain, { timeoutMs: 100 });
      for (let i = 0; i < 10_000; i++) await resolve(`did:ixo:u${i}`);
      await resolve('did:ixo:u10000'); // the 10,001st: kept with the others
      await resolve('did:ixo:u0');
      expect(calls).toHaveLength(10_001);
      await resolve('did:ixo:u10001'); // over: the cache starts again
      await resolve('did:ixo:u0');
      expect(calls).toHaveLength(10_003);
    });
  });
});
