import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../server/ussd/session-store.js';
import { createMemorySessionStore } from '../../server/ussd/stores/memory-session-store.js';
import { createRedisSessionStore } from '../../server/ussd/stores/redis-session-store.js';
import { deleteKeys, openTestRedis } from './helpers/ussd-app.js';

interface Value {
  state: string;
  data: { n: number; list: string[] };
}

const prefix = `test:stores:${randomBytes(4).toString('hex')}:`;
let redis: Redis;
beforeAll(async () => {
  redis = await openTestRedis();
});
afterAll(async () => {
  await deleteKeys(redis, 'test:stores:');
  redis.disconnect();
});

let counter = 0;
const kinds: [string, () => SessionStore<Value>][] = [
  ['memory', () => createMemorySessionStore<Value>({ sweepIntervalMs: 50 })],
  ['redis', () => createRedisSessionStore<Value>(redis, { prefix: `${prefix}${++counter}:` })],
];

describe.each(kinds)('%s session store', (kind, make) => {
  const value: Value = { state: 'preMenu', data: { n: 1, list: ['a'] } };

  it('stores, replaces and deletes sessions', async () => {
    const store = make();
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

  it('a loaded session cannot change the stored one (Redis: a copy; in-process: frozen, changes throw)', async () => {
    const store = make();
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

  it('lists the ids of live sessions, sorted, including awkward ids', async () => {
    const store = make();
    const ids = ['b', 'a*b', 'x[1]?', 'ATUid_ü', 'a'];
    for (const id of ids) await store.set(id, value, 60);
    expect(await store.list()).toEqual([...ids].sort());
    await store.delete('a*b');
    expect(await store.list()).toEqual(['ATUid_ü', 'a', 'b', 'x[1]?']);
    await store.close();
  });

  it('expires a session after its TTL of inactivity, and a set restarts the TTL', async () => {
    const store = make();
    await store.set('short', value, 1);
    await store.set('kept', value, 1);
    await sleep(600);
    await store.set('kept', value, 1);
    await sleep(600);
    expect(await store.get('short')).toBeUndefined();
    expect(await store.list()).toEqual(['kept']);
    expect(await store.get('kept')).toEqual(value);
    await sleep(1100);
    expect(await store.get('kept')).toBeUndefined();
    expect(await store.list()).toEqual([]);
    await store.close();
  });
});

describe('memory session store', () => {
  it('drops expired entries on read and in its sweep, with a fake clock', async () => {
    let now = 1_000_000;
    const store = createMemorySessionStore<string>({ now: () => now, sweepIntervalMs: 10 });
    await store.set('a', 'x', 180);
    now += 179_999;
    expect(await store.get('a')).toBe('x');
    now += 1;
    expect(await store.get('a')).toBeUndefined();
    await store.set('b', 'y', 1);
    now += 1000;
    await sleep(30);
    expect(await store.list()).toEqual([]);
    await store.close();
  });
});

describe('redis session store', () => {
  it('writes one key per session under its prefix with SET EX, and lists only its own prefix', async () => {
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
    const star = createRedisSessionStore<string>(redis, { prefix: `${prefix}g*:` });
    const plain = createRedisSessionStore<string>(redis, { prefix: `${prefix}gx:` });
    await plain.set('p', 'v', 60);
    await star.set('s', 'v', 60);
    expect(await star.list()).toEqual(['s']);
  });
});
