import type { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import { duplicateSubscriber } from '../../redis-subscriber.js';
import type { RunEventLog, RunEventRecord } from './event-log.js';

/** How often writes that failed (Redis down) are tried again. */
const RETRY_MS = 250;

/** A run this instance writes: its events so far, those not yet stored in Redis, and its retention once ended. */
interface WrittenRun {
  records: RunEventRecord[];
  pending: RunEventRecord[];
  /** How many of `records` are stored. */
  stored: number;
  /** The last write (writes of a run are ordered). */
  chain: Promise<void>;
  retry: NodeJS.Timeout | undefined;
  retainSeconds: number | undefined;
  startedAt: number;
}

/**
 * The run event log in Redis, shared by every instance: a list per run (`<prefix>run:<id>:events`, one JSON
 * record per event) and a pub/sub channel per run (`<prefix>run:<id>`) for live followers. Followers use one
 * subscriber connection per instance. A follower may hear an event twice (from its own instance and from
 * Redis, or again after a retried write): followers skip ids they have passed.
 *
 * Redis may be down while a run writes: the instance executing it keeps the run's events in memory until
 * they are stored, writes them in order once Redis answers again (and publishes them then), and answers
 * reads of that run from memory meanwhile. So a client that re-joins after an outage gets every event, and
 * a follower on this instance never waits for Redis.
 */
export function createRedisRunEventLog(options: {
  redis: Redis;
  prefix: string;
  /** TTL of a run's events while it is in flight (refreshed by every append). */
  maxAgeSeconds: number;
  logger: Logger;
}): RunEventLog {
  const { redis, prefix, maxAgeSeconds, logger } = options;
  const listKey = (runId: string): string => `${prefix}run:${runId}:events`;
  const channel = (runId: string): string => `${prefix}run:${runId}`;
  const listeners = new Map<string, Set<(record: RunEventRecord) => void>>();
  const written = new Map<string, WrittenRun>();
  const resubscribing = new Set<string>();
  let subscriber: Redis | undefined;
  let closed = false;

  const getSubscriber = (): Redis => {
    if (subscriber) return subscriber;
    // Subscribing waits for the connection (the shared client fails fast instead).
    const sub = duplicateSubscriber(redis);
    sub.on('message', (ch: string, message: string) => {
      const runId = ch.slice(`${prefix}run:`.length);
      const set = listeners.get(runId);
      if (!set) return;
      let record: RunEventRecord;
      try {
        record = JSON.parse(message) as RunEventRecord;
      } catch {
        return;
      }
      for (const listener of set) listener(record);
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
      if (!resubscribing.has(runId))
        logger.warn({ err, runId }, 'runs: subscribing to a run failed; retrying');
      resubscribing.add(runId);
      setTimeout(() => {
        if (!closed && listeners.has(runId)) void subscribeChannel(runId);
        else resubscribing.delete(runId);
      }, RETRY_MS).unref();
    }
  };

  /** Stores the run's pending events in order (one transaction), publishes them, applies its retention. */
  const writePending = async (runId: string, run: WrittenRun): Promise<void> => {
    const batch = run.pending.slice();
    if (batch.length > 0) {
      const json = batch.map((r) => JSON.stringify(r));
      const multi = redis
        .multi()
        .rpush(listKey(runId), ...json)
        .expire(listKey(runId), maxAgeSeconds);
      for (const item of json) multi.publish(channel(runId), item);
      const results = await multi.exec();
      const failed = results?.find(([err]) => err)?.[0];
      if (!results || failed) throw failed ?? new Error('the Redis transaction was discarded');
      run.pending.splice(0, batch.length);
      run.stored += batch.length;
      // Shorter than what this instance stored: Redis lost the list (restarted without its data). Written
      // again whole from memory, so a re-join on any instance gets every event of this attempt.
      if (Number(results[0]?.[1]) < run.stored) {
        await redis
          .multi()
          .del(listKey(runId))
          .rpush(listKey(runId), ...run.records.map((r) => JSON.stringify(r)))
          .expire(listKey(runId), maxAgeSeconds)
          .exec();
        logger.warn(
          { runId, events: run.records.length },
          "runs: Redis had lost a run's events; written again",
        );
      }
    }
    if (run.pending.length === 0 && run.retainSeconds !== undefined) {
      await redis.expire(listKey(runId), run.retainSeconds);
      written.delete(runId);
    }
  };

  /** Queues a write of the run's pending events after the previous one; a failed write is tried again later. */
  const flush = (runId: string, run: WrittenRun): Promise<void> => {
    const attempt = run.chain.then(() => writePending(runId, run));
    run.chain = attempt.catch(() => {
      if (run.retry || closed) return;
      // Given up once the run's events would have expired anyway.
      if (Date.now() - run.startedAt > maxAgeSeconds * 1000) {
        written.delete(runId);
        return;
      }
      run.retry = setTimeout(() => {
        run.retry = undefined;
        // A failure schedules the next try (in flush); nobody waits for this one.
        if (written.get(runId) === run) flush(runId, run).catch(() => undefined);
      }, RETRY_MS);
      run.retry.unref();
    });
    return attempt;
  };

  return {
    append(runId, record) {
      // Followers on this instance hear it at once; the copy from Redis is skipped by id (ids grow).
      for (const listener of listeners.get(runId) ?? []) listener(record);
      let run = written.get(runId);
      if (!run) {
        run = {
          records: [],
          pending: [],
          stored: 0,
          chain: Promise.resolve(),
          retry: undefined,
          retainSeconds: undefined,
          startedAt: Date.now(),
        };
        written.set(runId, run);
      }
      run.records.push(record);
      run.pending.push(record);
      return flush(runId, run);
    },
    async read(runId, after) {
      const local = written.get(runId);
      let stored: RunEventRecord[];
      try {
        stored = (await redis.lrange(listKey(runId), 0, -1)).map(
          (item) => JSON.parse(item) as RunEventRecord,
        );
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
    async retain(runId, seconds) {
      const run = written.get(runId);
      if (!run) {
        await redis.expire(listKey(runId), seconds);
        return;
      }
      // Applied once every event is stored (see writePending); until then the events stay in memory.
      run.retainSeconds = seconds;
      await flush(runId, run);
    },
    async close() {
      closed = true;
      for (const run of written.values()) if (run.retry) clearTimeout(run.retry);
      // What is still pending gets one last chance.
      await Promise.all([...written.values()].map((run) => run.chain));
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
