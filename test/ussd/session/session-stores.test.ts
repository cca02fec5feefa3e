import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionStore } from '../../../server/ussd/session/session-store.js';
import { createMemorySessionStore } from '../../../server/ussd/session/memory-session-store.js';
import { createRedisSessionStore } from '../../../server/ussd/session/redis-session-store.js';
import { deleteKeys, openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';

interface Value {
  state: string;
  data: { n: number; list: string[] };
}

// Both stores, the same contract. Time passes without waiting: the in-process store gets a fake clock;
// in Redis, a key's own TTL is shortened by the time meant to pass (Redis expires keys by its own clock).
const prefix = testRedisPrefix('test-stores');
let redis: Redis | undefined;
beforeAll(async () => {
  if (TEST_REDIS_URL) redis = await openTestRedis();
});
afterAll(async () => {
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});
afterEach(() => {
  vi.useRealTimers();
});

/** A store under test and a way to let time pass for it. */
interface Subject {
  store: SessionStore<Value>;
  elapse(ms: number): Promise<void>;
}

let counter = 0;
const memorySubject = (): Subject => {
  let now = 1_000_000;
  return {
    store: createMemorySessionStore<Value>({ now: () => now }),
    elapse: (ms) => {
      now += ms;
      return Promise.resolve();
    },
  };
};
const redisSubject = (): Subject => {
  const client = redis;
  if (client === undefined) throw new Error('no Redis');
  const own = `${prefix}${++counter}:`;
  return {
    store: createRedisSessionStore<Value>(client, { prefix: own }),
    async elapse(ms) {
      for (const key of await client.keys(`${own}*`)) {
        const left = await client.pttl(key);
        if (left > ms) await client.pexpire(key, left - ms);
        else await client.del(key);
      }
    },
  };
};

describe.each([
  ['memory', false],
  ['redis', true],
] as const)('%s session store', (kind, inRedis) => {
  const make = (): Subject => (inRedis ? redisSubject() : memorySubject());
  const value: Value = { state: 'preMenu', data: { n: 1, list: ['a'] } };
  const test = it.runIf(!inRedis || TEST_REDIS_URL);

  test('stores, replaces and deletes sessions', async () => {
    const { store } = make();
    expect(await store.get('s1')).toBeUndefined();
    await store.set('s1', value, 60);
    expect(await store.get('s1')).toEqual(value);
    await store.set('s1', { ...value, state: 'echo' }, 60);
    expect((await store.get('s1'))?.state).toBe('echo');
    await store.delete('s1');
    expect(await store.get('s1')).toBeUndefined();
    await store.delete('never-there');
    await store.close();
  });

  test('a loaded session cannot change the stored one (Redis: a copy; in-process: frozen, changes throw)', async () => {
    const { store } = make();
    const original: Value = { state: 'preMenu', data: { n: 1, list: ['a'] } };
    await store.set('s1', original, 60);
    const loaded = await store.get('s1');
    if (loaded === undefined) throw new Error('not stored');
    const change = () => loaded.data.list.push('mutated');
    if (kind === 'memory') expect(change).toThrow(TypeError);
    else change();
    expect(await store.get('s1')).toEqual(value);
    await store.close();
  });

  test('lists the ids of live sessions, sorted, including awkward ids', async () => {
    const { store } = make();
    const ids = ['b', 'a*b', 'x[1]?', 'ATUid_ü', 'a'];
    for (const id of ids) await store.set(id, value, 60);
    expect(await store.list()).toEqual([...ids].sort());
    await store.delete('a*b');
    expect(await store.list()).toEqual(['ATUid_ü', 'a', 'b', 'x[1]?']);
    await store.close();
  });

  test('expires a session after its TTL of inactivity, and a set restarts the TTL', async () => {
    const { store, elapse } = make();
    await store.set('short', value, 60);
    await store.set('kept', value, 60);
    await elapse(30_000);
    await store.set('kept', value, 60);
    await elapse(30_000);
    expect(await store.get('short')).toBeUndefined();
    expect(await store.list()).toEqual(['kept']);
    expect(await store.get('kept')).toEqual(value);
    await elapse(30_000);
    expect(await store.get('kept')).toBeUndefined();
    expect(await store.list()).toEqual([]);
    await store.close();
  });
});

describe('memory session store', () => {
  it('drops expired entries on read and in its sweep, with a fake clock', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let now = 1_000_000;
    const store = createMemorySessionStore<string>({ now: () => now, sweepIntervalMs: 10 });
    await store.set('a', 'x', 180);
    now += 179_999;
    expect(await store.get('a')).toBe('x');
    now += 1;
    expect(await store.get('a')).toBeUndefined();
    await store.set('b', 'y', 1);
    await store.set('c', 'z', 5);
    now += 1000;
    vi.advanceTimersByTime(10);
    // The sweep dropped the expired entry without anyone reading it; the live one stays.
    expect(await store.list()).toEqual(['c']);
    await store.close();
  });

  it('sweeps every 15 s by default, and close() stops the sweep', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let reads = 0;
    const store = createMemorySessionStore<string>({
      now: () => {
        reads++;
        return 1_000_000;
      },
    });
    vi.advanceTimersByTime(14_999);
    expect(reads).toBe(0);
    vi.advanceTimersByTime(1);
    expect(reads).toBe(1);
    await store.close();
    vi.advanceTimersByTime(60_000);
    expect(reads).toBe(1);
  });

  it('without a clock of its own, expires by the system clock', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const store = createMemorySessionStore<string>();
    await store.set('a', 'x', 60);
    vi.setSystemTime(1_000_000 + 59_999);
    expect(await store.get('a')).toBe('x');
    vi.setSystemTime(1_000_000 + 60_000);
    expect(await store.get('a')).toBeUndefined();
    await store.close();
  });
});

describe.runIf(TEST_REDIS_URL)('redis session store', () => {
  it('writes one key per session under its prefix with SET EX, and lists only its own prefix', async () => {
    if (redis === undefined) throw new Error('no Redis');
    const mine = createRedisSessionStore<string>(redis, { prefix: `${prefix}own:` });
    const other = createRedisSessionStore<string>(redis, { prefix: `${prefix}other:` });
    await mine.set('s', 'v', 120);
    await other.set('t', 'w', 120);
    const ttl = await redis.ttl(`${prefix}own:s`);
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
    expect(await redis.get(`${prefix}own:s`)).toBe('"v"');
    expect(await mine.list()).toEqual(['s']);
    expect(await other.list()).toEqual(['t']);
  });

  it('treats glob characters in the prefix literally', async () => {
    if (redis === undefined) throw new Error('no Redis');
    const star = createRedisSessionStore<string>(redis, { prefix: `${prefix}g*:` });
    const plain = createRedisSessionStore<string>(redis, { prefix: `${prefix}gx:` });
    await plain.set('p', 'v', 60);
    await star.set('s', 'v', 60);
    expect(await star.list()).toEqual(['s']);
  });

  it('lists every session when SCAN needs more than one page', async () => {
    if (redis === undefined) throw new Error('no Redis');
    const many = createRedisSessionStore<string>(redis, { prefix: `${prefix}many:` });
    const ids = Array.from({ length: 1500 }, (_, i) => `s${String(i).padStart(4, '0')}`);
    await Promise.all(ids.map((id) => many.set(id, 'v', 60)));
    expect(await many.list()).toEqual(ids);
  });
});
