import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEventLog, RunEventRecord } from '../../../server/oracle/runs/event-log.js';
import { firstIdOfAttempt, IDS_PER_ATTEMPT } from '../../../server/oracle/runs/event-log.js';
import { createMemoryRunEventLog } from '../../../server/oracle/runs/memory-event-log.js';
import { createRedisRunEventLog } from '../../../server/oracle/runs/redis-event-log.js';
import { deleteKeys, openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';

// The contract of a run event log (server/oracle/runs/event-log.ts), run against each implementation: the
// in-process one always, the Redis one when REDIS_URL is set (CI's production column). Issue 26: `read(runId,
// N)` returns only the ids above N (before, only the run manager's own second filter held this).

const message = (id: number, content: string): RunEventRecord => ({
  id,
  event: 'message',
  data: { content, timestamp: '2026-11-27T10:00:00.000Z' },
});

/** Appends in order and waits for each write (the Redis log answers a promise, the memory one undefined). */
async function appendAll(log: RunEventLog, runId: string, records: RunEventRecord[]): Promise<void> {
  for (const r of records) await log.append(runId, r);
}

function contract(name: string, open: () => Promise<{ log: RunEventLog; close: () => Promise<void> }>) {
  describe(`${name} run event log`, () => {
    let log: RunEventLog;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ log, close } = await open());
    });
    afterAll(() => close());

    it('read(runId, N) answers exactly the events with id > N, in order', async () => {
      const records = [1, 2, 3, 4, 5].map((id) => message(id, `w${id} `));
      await appendAll(log, 'run_read', records);
      expect(await log.read('run_read', 0)).toEqual(records);
      expect(await log.read('run_read', 3)).toEqual(records.slice(3));
      expect(await log.read('run_read', 4)).toEqual(records.slice(4));
      expect(await log.read('run_read', 5)).toEqual([]);
      expect(await log.read('run_read', 99)).toEqual([]);
    });

    it('readStarted(runId, N) answers what read does for a run this process started', async () => {
      const records = [1, 2, 3].map((id) => message(id, `s${id} `));
      for (const r of records) void log.append('run_started', r);
      expect(await log.readStarted('run_started', 0)).toEqual(records);
      expect(await log.readStarted('run_started', 2)).toEqual(records.slice(2));
      expect(await log.readStarted('run_started', 0)).toEqual(await log.read('run_started', 0));
    });

    it('ids of a resumed attempt continue above the first attempt’s, and read skips what was seen', async () => {
      const first = [1, 2, 3].map((id) => message(id, `a${id} `));
      const second = [0, 1].map((n) => message(firstIdOfAttempt(1) + n, `b${n} `));
      await appendAll(log, 'run_attempts', [...first, ...second]);
      expect(firstIdOfAttempt(1)).toBe(IDS_PER_ATTEMPT + 1);
      expect(await log.read('run_attempts', 3)).toEqual(second);
      expect(await log.read('run_attempts', 2)).toEqual([first[2], ...second]);
      expect(await log.read('run_attempts', firstIdOfAttempt(1))).toEqual(second.slice(1));
    });

    it('keeps runs apart, and an unknown run has no events', async () => {
      await appendAll(log, 'run_x', [message(1, 'x')]);
      await appendAll(log, 'run_y', [message(1, 'y'), message(2, 'yy')]);
      expect(await log.read('run_x', 0)).toEqual([message(1, 'x')]);
      expect(await log.read('run_y', 1)).toEqual([message(2, 'yy')]);
      expect(await log.read('run_never', 0)).toEqual([]);
    });

    it('a subscriber hears each event appended after it subscribed, until it unsubscribes', async () => {
      await appendAll(log, 'run_live', [message(1, 'before')]);
      const heard: number[] = [];
      const unsubscribe = await log.subscribe('run_live', (r) => heard.push(r.id));
      await appendAll(log, 'run_live', [message(2, 'after'), message(3, 'again')]);
      // The shared log may deliver an event twice (locally and through Redis); followers skip by id.
      await expect.poll(() => [...new Set(heard)]).toEqual([2, 3]);
      unsubscribe();
      await appendAll(log, 'run_live', [message(4, 'gone')]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).not.toContain(4);
    });

    it('every subscriber of a run hears it; unsubscribing one leaves the others, and a second time does nothing', async () => {
      const first: number[] = [];
      const second: number[] = [];
      const offFirst = await log.subscribe('run_two_ears', (r) => first.push(r.id));
      const offSecond = await log.subscribe('run_two_ears', (r) => second.push(r.id));
      await appendAll(log, 'run_two_ears', [message(1, 'both')]);
      await expect.poll(() => [[...new Set(first)], [...new Set(second)]]).toEqual([[1], [1]]);
      offFirst();
      offFirst();
      await appendAll(log, 'run_two_ears', [message(2, 'second only')]);
      await expect.poll(() => [...new Set(second)]).toEqual([1, 2]);
      expect([...new Set(first)]).toEqual([1]);
      offSecond();
      offSecond();
    });

    it('retain on a run it has no events of changes nothing', async () => {
      await expect(log.retain('run_unknown_retained', 5)).resolves.toBeUndefined();
      expect(await log.read('run_unknown_retained', 0)).toEqual([]);
    });

    it('retain(runId, s) drops the events after s seconds', async () => {
      await appendAll(log, 'run_retained', [message(1, 'r')]);
      await log.retain('run_retained', 1);
      expect(await log.read('run_retained', 0)).toEqual([message(1, 'r')]);
      await expect.poll(() => log.read('run_retained', 0), { timeout: 4000, interval: 200 }).toEqual([]);
    });
  });
}

describe('the in-process run event log alone', () => {
  it('a run nobody ended is dropped after maxAgeSeconds, but not while someone follows it', async () => {
    const log = createMemoryRunEventLog({ maxAgeSeconds: 0.2 });
    await appendAll(log, 'run_old', [message(1, 'old')]);
    const heard: number[] = [];
    const off = await log.subscribe('run_followed', (r) => heard.push(r.id));
    await appendAll(log, 'run_followed', [message(1, 'kept')]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await log.read('run_old', 0)).toEqual([]);
    expect(await log.read('run_followed', 0)).toEqual([message(1, 'kept')]);
    await appendAll(log, 'run_followed', [message(2, 'still heard')]);
    expect(heard).toEqual([1, 2]);
    off();
    await log.close();
  });

  it('close() drops every run', async () => {
    const log = createMemoryRunEventLog({ maxAgeSeconds: 60 });
    await appendAll(log, 'run_closed', [message(1, 'x')]);
    await log.close();
    expect(await log.read('run_closed', 0)).toEqual([]);
  });
});

contract('the in-process', () => {
  const log = createMemoryRunEventLog({ maxAgeSeconds: 60 });
  return Promise.resolve({ log, close: () => log.close() });
});

describe.runIf(TEST_REDIS_URL)('with Redis', () => {
  contract('the Redis', async () => {
    const redis: Redis = await openTestRedis();
    const prefix = testRedisPrefix();
    const log = createRedisRunEventLog({
      redis,
      prefix,
      maxAgeSeconds: 60,
      logger: pino({ level: 'silent' }),
    });
    return {
      log,
      close: async () => {
        await log.close();
        await deleteKeys(redis, prefix);
        redis.disconnect();
      },
    };
  });
});

// What only the shared log does: another instance hears the events, a list Redis lost is written again whole,
// appends keep the list alive for maxAgeSeconds and retain shortens it, and text on a run's channel that is not
// an event is ignored.
describe.runIf(TEST_REDIS_URL)('the Redis run event log between instances', () => {
  let redis: Redis;
  let prefix: string;
  let a: RunEventLog;
  let b: RunEventLog;
  const open = () =>
    createRedisRunEventLog({ redis, prefix, maxAgeSeconds: 60, logger: pino({ level: 'silent' }) });
  beforeAll(async () => {
    redis = await openTestRedis();
    prefix = testRedisPrefix();
    a = open();
    b = open();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('a follower on another instance hears each appended event once Redis has it; garbage on the channel is not an event', async () => {
    const heard: RunEventRecord[] = [];
    const off = await b.subscribe('run_shared', (r) => heard.push(r));
    await redis.publish(`${prefix}run:run_shared`, 'not json');
    await appendAll(a, 'run_shared', [message(1, 'one '), message(2, 'two')]);
    await expect.poll(() => heard.length).toBe(2);
    expect(heard).toEqual([message(1, 'one '), message(2, 'two')]);
    // The other instance reads them from Redis too.
    expect(await b.read('run_shared', 0)).toEqual([message(1, 'one '), message(2, 'two')]);
    off();
  });

  it('readStarted reads a run this instance started from memory (no LRANGE), and any other run from Redis', async () => {
    const commands: string[] = [];
    const monitor = await redis.monitor();
    monitor.on('monitor', (_time: string, args: string[]) => commands.push(args.join(' ')));
    try {
      for (const id of [1, 2]) void a.append('run_fresh', message(id, `f${id} `));
      expect(await a.readStarted('run_fresh', 0)).toEqual([message(1, 'f1 '), message(2, 'f2 ')]);
      // Resumed here (its first attempt was another instance's): the earlier events are in Redis only.
      await appendAll(b, 'run_taken', [message(1, 'old ')]);
      const resumed = message(firstIdOfAttempt(1), 'new ');
      await appendAll(a, 'run_taken', [resumed]);
      expect(await a.readStarted('run_taken', 0)).toEqual([message(1, 'old '), resumed]);
      await expect
        .poll(() => commands.some((c) => c.includes('lrange') && c.includes('run_taken')))
        .toBe(true);
      expect(commands.filter((c) => c.includes('lrange') && c.includes('run_fresh'))).toEqual([]);
    } finally {
      monitor.disconnect();
    }
  });

  it('one write of thousands of events (a run that waited out an outage) is stored whole and heard whole', async () => {
    const heard: RunEventRecord[] = [];
    const off = await b.subscribe('run_big', (r) => heard.push(r));
    const records = Array.from({ length: 10_000 }, (_, i) => message(i + 1, `w${i} `));
    // Appended in one tick: one write, which the append script stores in slices of a thousand.
    await Promise.all(records.map(async (r) => a.append('run_big', r)));
    expect(await redis.llen(`${prefix}run:run_big:events`)).toBe(10_000);
    expect(await b.read('run_big', 0)).toEqual(records);
    await expect.poll(() => heard.length).toBe(10_000);
    expect(heard).toEqual(records);
    off();
  });

  it("one subscriber connection: a run's channel is let go when its last listener leaves, and every channel at close()", async () => {
    const own = open();
    const numsub = async (runId: string): Promise<number> => {
      const answer = (await redis.pubsub('NUMSUB', `${prefix}run:${runId}`)) as [string, number];
      return Number(answer[1]);
    };
    const offFirst = await own.subscribe('run_ch_one', () => undefined);
    const offSecond = await own.subscribe('run_ch_one', () => undefined);
    await own.subscribe('run_ch_two', () => undefined);
    await own.subscribe('run_ch_three', () => undefined);
    expect(await numsub('run_ch_one')).toBe(1);
    expect(await numsub('run_ch_two')).toBe(1);
    offFirst();
    await sleep(50);
    expect(await numsub('run_ch_one')).toBe(1);
    offSecond();
    await expect.poll(() => numsub('run_ch_one')).toBe(0);
    expect(await numsub('run_ch_two')).toBe(1);
    await own.close();
    // Listeners still attached: close() lets go of the connection, so of both channels.
    await expect.poll(() => numsub('run_ch_two')).toBe(0);
    expect(await numsub('run_ch_three')).toBe(0);
  });

  it('appends keep the list for maxAgeSeconds; retain sets its time left', async () => {
    await appendAll(a, 'run_ttl', [message(1, 'x')]);
    const key = `${prefix}run:run_ttl:events`;
    expect(await redis.ttl(key)).toBeGreaterThan(55);
    await a.retain('run_ttl', 7);
    expect(await redis.ttl(key)).toBeLessThanOrEqual(7);
    expect(await redis.ttl(key)).toBeGreaterThan(0);
    // A run this instance never wrote: retain applies to the list directly.
    await appendAll(a, 'run_elsewhere', [message(1, 'y')]);
    await b.retain('run_elsewhere', 5);
    expect(await redis.ttl(`${prefix}run:run_elsewhere:events`)).toBeLessThanOrEqual(5);
  });

  it('a list whose entries are out of order (a write tried again) reads in id order, each id once', async () => {
    const key = `${prefix}run:run_unordered:events`;
    await redis.rpush(
      key,
      ...[message(3, 'c'), message(1, 'a'), message(2, 'b'), message(1, 'a')].map((r) => JSON.stringify(r)),
    );
    expect(await b.read('run_unordered', 0)).toEqual([message(1, 'a'), message(2, 'b'), message(3, 'c')]);
  });

  it('a write Redis refuses is refused to its caller and tried again until it is stored', async () => {
    const key = `${prefix}run:run_refused:events`;
    // Not a list: the transaction's RPUSH fails (WRONGTYPE).
    await redis.set(key, 'not a list');
    await expect(a.append('run_refused', message(1, 'kept in memory'))).rejects.toThrow(/WRONGTYPE/);
    // This instance still reads it from memory; another one finds no list yet.
    expect(await a.read('run_refused', 0)).toEqual([message(1, 'kept in memory')]);
    await expect(b.read('run_refused', 0)).rejects.toThrow(/WRONGTYPE/);
    await redis.del(key);
    await expect.poll(() => b.read('run_refused', 0)).toEqual([message(1, 'kept in memory')]);
  });

  it('a write refused for longer than the events would be kept is given up', async () => {
    const short = createRedisRunEventLog({
      redis,
      prefix,
      maxAgeSeconds: 1,
      logger: pino({ level: 'silent' }),
    });
    const key = `${prefix}run:run_given_up:events`;
    await redis.set(key, 'not a list');
    await expect(short.append('run_given_up', message(1, 'never stored'))).rejects.toThrow(/WRONGTYPE/);
    expect(await short.read('run_given_up', 0)).toEqual([message(1, 'never stored')]);
    // Tried again every 250 ms; after a second (maxAgeSeconds) it is dropped from memory too, and a read goes
    // to Redis, which still holds its string (polled: on a busy machine the give-up comes late, never early).
    await expect
      .poll(
        () =>
          short.read('run_given_up', 0).then(
            () => 'still held in memory',
            (err: unknown) => String(err),
          ),
        { timeout: 6000, interval: 100 },
      )
      .toMatch(/WRONGTYPE/);
    await redis.del(key);
    await short.close();
  });

  it('a list Redis lost (restarted without its data) is written again whole by the instance writing the run', async () => {
    await appendAll(a, 'run_lost', [message(1, 'a '), message(2, 'b ')]);
    await redis.del(`${prefix}run:run_lost:events`);
    await appendAll(a, 'run_lost', [message(3, 'c')]);
    // Read from another instance (which has no copy in memory): every event of the attempt, once, in order.
    expect(await b.read('run_lost', 0)).toEqual([message(1, 'a '), message(2, 'b '), message(3, 'c')]);
    expect(await redis.llen(`${prefix}run:run_lost:events`)).toBe(3);
  });
});
