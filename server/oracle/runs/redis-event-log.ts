import type { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import { scriptCommand } from '../../redis-script.js';
import { duplicateSubscriber } from '../../redis-subscriber.js';
import { redisOutage } from '../../stores/outage-notice.js';
import { firstIdOfAttempt, type RunEventLog, type RunEventRecord } from './event-log.js';

/** How often writes that failed (Redis down) are tried again. */
const RETRY_MS = 250;

/** A promise and its settlers: what the appends of one batch wait for. */
interface Batch {
  done: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Refused to whoever waits for it; nobody waiting is no unhandled rejection (the write is tried again).
  done.catch(() => undefined);
  return { done, resolve, reject };
}

/** A run this instance writes: its events so far, those not yet stored in Redis, and its retention once ended. */
interface WrittenRun {
  runId: string;
  records: RunEventRecord[];
  /** Events not stored yet, as JSON, in order. */
  pending: string[];
  /** What the appends of `pending` wait for (none while nothing is pending). */
  batch: Batch | undefined;
  /** How many of `records` are stored. */
  stored: number;
  /** A write of this run is on its way (writes of a run are ordered: one at a time). */
  writing: boolean;
  /** Its last write failed: the retry timer writes it again (appends meanwhile wait for that). */
  failing: boolean;
  /** When the list's time to live was last set. */
  expiredAt: number;
  retainSeconds: number | undefined;
  startedAt: number;
  /** Settled by the write in progress (close() waits for it). */
  settled: Promise<void>;
}

/**
 * One write of a run's events: appends them to its list (`KEYS[1]`), sets the list's time to live when `ARGV[2]`
 * is not 0, and publishes them on the run's channel (`ARGV[1]`) as one message: `ARGV[3]` (the message's start,
 * naming this instance), then the events as a JSON array. Answers the list's length. The events cross the
 * connection once, not once for the list and again for the channel, and the write is one command instead of
 * two or three. Appended in slices: Lua's `unpack` refuses a few thousand values, and a run that waited out an
 * outage may have more.
 */
const APPEND = `
local n = 0
for i = 4, #ARGV, 1000 do
  n = redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
if ARGV[2] ~= '0' then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
redis.call('PUBLISH', ARGV[1], ARGV[3] .. table.concat(ARGV, ',', 4) .. ']}')
return n
`;

/** A message on a run's channel: the events of one write, tagged with the instance that wrote them. */
interface ChannelMessage {
  from?: unknown;
  events?: unknown;
}

/**
 * The run event log in Redis, shared by every instance: a list per run (`<prefix>run:<id>:events`, one JSON
 * record per event) and a pub/sub channel per run (`<prefix>run:<id>`) for live followers. Followers use one
 * subscriber connection per instance. A follower may hear an event twice (from its own instance and from
 * Redis, or again after a retried write): followers skip ids they have passed.
 *
 * Writes are batched per tick: the events every run appended since the last write go out in one pipeline (for
 * each run, one script that appends them to its list and publishes them, {@link APPEND}), so the cost per event
 * falls as more runs stream at once. A run has one write on its way at a time, so its events are stored in
 * order.
 *
 * Redis may be down while a run writes: the instance executing it keeps the run's events in memory until
 * they are stored, writes them in order once Redis answers again (and publishes them then), and answers
 * reads of that run from memory meanwhile. So a client that re-joins after an outage gets every event, and
 * a follower on this instance never waits for Redis. The outage is logged once (redisOutage), not per event.
 */
export function createRedisRunEventLog(options: {
  redis: Redis;
  prefix: string;
  /** TTL of a run's events while it is in flight (refreshed while it writes). */
  maxAgeSeconds: number;
  logger: Logger;
}): RunEventLog {
  const { redis, prefix, maxAgeSeconds, logger } = options;
  const outage = redisOutage(redis, logger);
  /** How often a run that keeps writing refreshes its list's time to live. */
  const refreshTtlMs = Math.min(60_000, (maxAgeSeconds * 1000) / 4);
  const listKey = (runId: string): string => `${prefix}run:${runId}:events`;
  const channel = (runId: string): string => `${prefix}run:${runId}`;
  /** Tags this instance's messages, so its own subscriber skips them unread (local listeners heard them). */
  const origin = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  const ownMessage = `{"from":"${origin}"`;
  const appendEvents = scriptCommand<[string, string, number, string, ...string[]]>(
    redis,
    'appendRunEvents',
    APPEND,
    1,
  );
  const listeners = new Map<string, Set<(record: RunEventRecord) => void>>();
  const written = new Map<string, WrittenRun>();
  /** Runs with events to write at the next flush. */
  const dirty = new Set<WrittenRun>();
  const resubscribing = new Set<string>();
  let subscriber: Redis | undefined;
  let flushScheduled = false;
  /** Events appended and not stored yet, every run together. */
  let unstored = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const hear = (runId: string, record: unknown): void => {
    const set = listeners.get(runId);
    if (!set || typeof record !== 'object' || record === null) return;
    const { id, event } = record as { id?: unknown; event?: unknown };
    if (typeof id !== 'number' || typeof event !== 'string') return;
    for (const listener of set) listener(record as RunEventRecord);
  };

  const getSubscriber = (): Redis => {
    if (subscriber) return subscriber;
    // Subscribing waits for the connection (the shared client fails fast instead).
    const sub = duplicateSubscriber(redis);
    sub.on('message', (ch: string, message: string) => {
      // This instance's own write: its listeners heard those events as they were appended.
      if (message.startsWith(ownMessage)) return;
      const runId = ch.slice(`${prefix}run:`.length);
      if (!listeners.has(runId)) return;
      let parsed: ChannelMessage;
      try {
        parsed = JSON.parse(message) as ChannelMessage;
      } catch {
        return;
      }
      if (Array.isArray(parsed.events)) for (const record of parsed.events) hear(runId, record);
      // One record per message: what an instance of an earlier version publishes.
      else hear(runId, parsed);
    });
    subscriber = sub;
    return sub;
  };

  /** Subscribes to the run's channel; while Redis refuses, tries again (local listeners hear appends anyway). */
  const subscribeChannel = async (runId: string): Promise<void> => {
    try {
      await getSubscriber().subscribe(channel(runId));
      resubscribing.delete(runId);
    } catch (err) {
      if (!resubscribing.has(runId)) outage.failed(err);
      resubscribing.add(runId);
      setTimeout(() => {
        if (!closed && listeners.has(runId)) void subscribeChannel(runId);
        else resubscribing.delete(runId);
      }, RETRY_MS).unref();
    }
  };

  const scheduleFlush = (): void => {
    if (flushScheduled || closed) return;
    flushScheduled = true;
    setImmediate(flush);
  };

  /** Applies a run's retention once all its events are stored (then it is no longer held in memory). */
  const settleRetention = async (run: WrittenRun): Promise<void> => {
    if (written.get(run.runId) !== run) return;
    if (run.pending.length > 0 || run.retainSeconds === undefined || run.writing) return;
    written.delete(run.runId);
    await redis.expire(listKey(run.runId), run.retainSeconds);
  };

  /** A write of `run` failed: its appends are refused, its events stay pending and are tried again later. */
  const writeFailed = (run: WrittenRun, batch: Batch | undefined, err: unknown): void => {
    outage.failed(err);
    batch?.reject(err);
    // Given up once the run's events would have expired anyway.
    if (Date.now() - run.startedAt > maxAgeSeconds * 1000) {
      unstored -= run.pending.length;
      written.delete(run.runId);
      return;
    }
    run.failing = true;
    if (!retryTimer && !closed) {
      retryTimer = setTimeout(() => {
        retryTimer = undefined;
        for (const r of written.values()) {
          if (!r.failing) continue;
          r.failing = false;
          if (r.pending.length > 0) dirty.add(r);
        }
        flush();
      }, RETRY_MS);
      retryTimer.unref();
    }
  };

  /**
   * Writes the pending events of every run that moved, in one pipeline. A run whose write is on its way waits
   * for the next flush (scheduled when that write ends).
   */
  function flush(): void {
    flushScheduled = false;
    if (dirty.size === 0) return;
    const now = Date.now();
    const runs: { run: WrittenRun; count: number; batch: Batch | undefined; expire: boolean }[] = [];
    const pipeline = redis.pipeline();
    for (const run of dirty) {
      if (run.writing || run.failing || run.pending.length === 0 || written.get(run.runId) !== run) continue;
      const count = run.pending.length;
      const json = run.pending.slice();
      const expire = run.stored === 0 || now - run.expiredAt >= refreshTtlMs;
      void appendEvents(
        pipeline,
        listKey(run.runId),
        channel(run.runId),
        expire ? maxAgeSeconds : 0,
        `${ownMessage},"events":[`,
        ...json,
      );
      runs.push({ run, count, batch: run.batch, expire });
      run.batch = undefined;
      run.writing = true;
    }
    dirty.clear();
    if (runs.length === 0) return;
    const exec = pipeline.exec();
    const settled = exec.then(
      async (results) => {
        let at = 0;
        for (const { run, count, batch, expire } of runs) {
          const reply = results?.[at++];
          run.writing = false;
          const failed = reply?.[0];
          if (!results || failed) {
            writeFailed(run, batch, failed ?? new Error('the Redis pipeline was discarded'));
            continue;
          }
          outage.recovered();
          run.pending.splice(0, count);
          run.stored += count;
          unstored -= count;
          if (expire) run.expiredAt = now;
          // Shorter than what this instance stored: Redis lost the list (restarted without its data). Written
          // again whole from memory, so a re-join on any instance gets every event of this attempt.
          if (Number(reply?.[1]) < run.stored) await rewriteLost(run);
          batch?.resolve();
          if (run.pending.length > 0) {
            dirty.add(run);
            scheduleFlush();
          } else await settleRetention(run).catch((err: unknown) => outage.failed(err));
        }
      },
      (err: unknown) => {
        for (const { run, batch } of runs) {
          run.writing = false;
          writeFailed(run, batch, err);
        }
      },
    );
    for (const { run } of runs) run.settled = settled;
  }

  const rewriteLost = async (run: WrittenRun): Promise<void> => {
    await redis
      .multi()
      .del(listKey(run.runId))
      .rpush(listKey(run.runId), ...run.records.map((r) => JSON.stringify(r)))
      .expire(listKey(run.runId), maxAgeSeconds)
      .exec();
    logger.warn(
      { runId: run.runId, events: run.records.length },
      "runs: Redis had lost a run's events; written again",
    );
  };

  const read = async (runId: string, after: number): Promise<RunEventRecord[]> => {
    const local = written.get(runId);
    let stored: RunEventRecord[];
    try {
      stored = (await redis.lrange(listKey(runId), 0, -1)).map((item) => JSON.parse(item) as RunEventRecord);
    } catch (err) {
      // Redis is down: a run written here is read from memory (its earlier attempts' events are not).
      if (!local) throw err;
      stored = [];
    }
    // Stored events and those not stored yet, by id: each once, in order (a retried write may repeat some).
    const byId = new Map<number, RunEventRecord>();
    for (const record of [...stored, ...(local?.records ?? [])])
      if (record.id > after) byId.set(record.id, record);
    return [...byId.values()].sort((a, b) => a.id - b.id);
  };

  return {
    append(runId, record) {
      // Followers on this instance hear it at once; the copy from Redis is skipped unread (see getSubscriber).
      for (const listener of listeners.get(runId) ?? []) listener(record);
      let run = written.get(runId);
      if (!run) {
        const now = Date.now();
        run = {
          runId,
          records: [],
          pending: [],
          batch: undefined,
          stored: 0,
          writing: false,
          failing: false,
          expiredAt: now,
          retainSeconds: undefined,
          startedAt: now,
          settled: Promise.resolve(),
        };
        written.set(runId, run);
      }
      run.records.push(record);
      run.pending.push(JSON.stringify(record));
      unstored++;
      run.batch ??= newBatch();
      dirty.add(run);
      scheduleFlush();
      return run.batch.done;
    },
    read,
    readStarted(runId, after) {
      const run = written.get(runId);
      // Every event of the run is here when this instance wrote its first one (not a run it resumed).
      if (run?.records[0]?.id !== firstIdOfAttempt(0)) return read(runId, after);
      return Promise.resolve(run.records.filter((record) => record.id > after));
    },
    async subscribe(runId, listener) {
      let set = listeners.get(runId);
      if (!set) {
        set = new Set();
        listeners.set(runId, set);
        await subscribeChannel(runId);
      }
      set.add(listener);
      return () => {
        const current = listeners.get(runId);
        if (!current) return;
        current.delete(listener);
        if (current.size === 0) {
          listeners.delete(runId);
          subscriber?.unsubscribe(channel(runId)).catch(() => undefined);
        }
      };
    },
    unstored: () => unstored,
    async retain(runId, seconds) {
      const run = written.get(runId);
      if (!run) {
        await redis.expire(listKey(runId), seconds);
        return;
      }
      // Applied once every event is stored (see flush); until then the events stay in memory.
      run.retainSeconds = seconds;
      // Waits for the writes in progress and those to come (a refused one rejects: retried later).
      while (written.get(runId) === run && (run.writing || run.pending.length > 0)) {
        if (closed) throw new Error('the run event log is closed');
        if (run.writing) await run.settled;
        else {
          run.batch ??= newBatch();
          dirty.add(run);
          scheduleFlush();
          await run.batch.done;
        }
      }
      await settleRetention(run);
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      // What is still pending gets one last chance.
      if (dirty.size > 0) flush();
      await Promise.all([...written.values()].map((run) => run.settled.catch(() => undefined)));
      written.clear();
      listeners.clear();
      if (subscriber) {
        const sub = subscriber;
        subscriber = undefined;
        await sub.quit().catch(() => sub.disconnect());
      }
    },
  };
}
