import { describe, expect, it, vi } from 'vitest';
import { TokenCache } from '../../src/auth/token-cache.js';

describe('TokenCache', () => {
  it('caches per (user, oracle) and kind, and shares one mint between concurrent callers', async () => {
    let n = 0;
    const mint = vi.fn((kind: string, oracle: string) =>
      Promise.resolve({ serialized: `${kind}-${oracle}-${++n}`, expiresAt: Date.now() + 3_600_000 }),
    );
    const cache = new TokenCache(mint);
    const [a, b] = await Promise.all([
      cache.get('delegation', 'did:u1', 'did:o1'),
      cache.get('delegation', 'did:u1', 'did:o1'),
    ]);
    expect(a).toBe(b);
    expect(await cache.get('delegation', 'did:u1', 'did:o1')).toBe(a);
    expect((await cache.get('delegation', 'did:u2', 'did:o1')).serialized).toBe('delegation-did:o1-2');
    expect((await cache.get('delegation', 'did:u1', 'did:o2')).serialized).toBe('delegation-did:o2-3');
    expect((await cache.get('invocation', 'did:u1', 'did:o1')).serialized).toBe('invocation-did:o1-4');
    expect(mint).toHaveBeenCalledTimes(4);
  });

  it('renews before expiry: 5 minutes ahead, or at half the lifetime of short tokens', async () => {
    let now = 1_000_000;
    let n = 0;
    const lifetime = { delegation: 3_600_000, invocation: 60_000 } as const;
    const cache = new TokenCache(
      (kind) => Promise.resolve({ serialized: String(++n), expiresAt: now + lifetime[kind] }),
      () => now,
    );
    expect((await cache.get('delegation', 'u', 'o')).serialized).toBe('1');
    now += 3_600_000 - 300_001;
    expect((await cache.get('delegation', 'u', 'o')).serialized).toBe('1');
    now += 2;
    expect((await cache.get('delegation', 'u', 'o')).serialized).toBe('2');

    expect((await cache.get('invocation', 'u', 'o')).serialized).toBe('3');
    now += 29_999;
    expect((await cache.get('invocation', 'u', 'o')).serialized).toBe('3');
    now += 2;
    expect((await cache.get('invocation', 'u', 'o')).serialized).toBe('4');
  });

  it('mints again after drop, and does not cache a failed mint', async () => {
    const mint = vi
      .fn()
      .mockRejectedValueOnce(new Error('wallet locked'))
      .mockResolvedValue({ serialized: 'ok', expiresAt: Date.now() + 3_600_000 });
    const cache = new TokenCache(mint);
    await expect(cache.get('delegation', 'u', 'o')).rejects.toThrow('wallet locked');
    expect((await cache.get('delegation', 'u', 'o')).serialized).toBe('ok');
    cache.drop('delegation', 'u', 'o');
    await cache.get('delegation', 'u', 'o');
    expect(mint).toHaveBeenCalledTimes(3);
  });
});

describe('onReauthorize that answers later (issue 35 item 1)', () => {
  const setup = (answer: () => Promise<boolean | void>) => {
    const minted: string[] = [];
    const cache = new TokenCache(
      (kind) => {
        minted.push(kind);
        return Promise.resolve({ serialized: `${kind}-${minted.length}`, expiresAt: Date.now() + 3_600_000 });
      },
      Date.now,
      undefined,
      answer,
    );
    return { cache, minted };
  };

  it('is awaited: the delegation is not minted again before it resolves true', async () => {
    let agree: (ok: boolean) => void = () => undefined;
    const { cache, minted } = setup(() => new Promise<boolean>((resolve) => (agree = resolve)));
    await cache.get('delegation', 'u', 'o');
    const renewing = cache.renew('delegation', 'u', 'o', 'delegation_expired');
    await new Promise((r) => setTimeout(r, 30));
    expect(minted).toEqual(['delegation']);
    agree(true);
    expect((await renewing).serialized).toBe('delegation-2');
    expect(minted).toEqual(['delegation', 'delegation']);
  });

  it('false, answered later, declines: ReauthorizationDeclinedError, nothing minted, the old delegation kept', async () => {
    const { cache, minted } = setup(
      () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20)),
    );
    const first = await cache.get('delegation', 'u', 'o');
    await expect(cache.renew('delegation', 'u', 'o', 'delegation_expired')).rejects.toMatchObject({
      name: 'ReauthorizationDeclinedError',
    });
    expect(minted).toEqual(['delegation']);
    expect(await cache.get('delegation', 'u', 'o')).toBe(first);
  });
});
