import type { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import type { RunEventLog, RunEventRecord } from './event-log.js';

/**
 * The run event log in Redis, shared by every instance: a list per run (`<prefix>run:<id>:events`, one JSON
 * record per event) and a pub/sub channel per run (`<prefix>run:<id>`) for live followers. Appends are
 * pipelined in order on one connection; followers use one subscriber connection per instance. A follower may
 * hear an event twice (from its own instance and from Redis): followers skip ids they have passed.
 */
export function createRedisRunEventLog(options: {
  redis: Redis;
  prefix: string;
  /** TTL of a run's events while it is in flight (refreshed by every append). */
  maxAgeSeconds: number;
  logger: Logger;
}): RunEventLog {
  const { redis, prefix, maxAgeSeconds } = options;
  const listKey = (runId: string): string => `${prefix}run:${runId}:events`;
  const channel = (runId: string): string => `${prefix}run:${runId}`;
  const listeners = new Map<string, Set<(record: RunEventRecord) => void>>();
  let subscriber: Redis | undefined;

  const getSubscriber = (): Redis => {
    if (subscriber) return subscriber;
    // Subscribing waits for the connection (the shared client fails fast instead).
    const sub = redis.duplicate({ enableAutoPipelining: false, enableOfflineQueue: true });
    sub.on('error', () => undefined);
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

  return {
    append(runId, record) {
      // Followers on this instance hear it at once; the copy from Redis is skipped by id (ids grow).
      for (const listener of listeners.get(runId) ?? []) listener(record);
      const json = JSON.stringify(record);
      return redis
        .multi()
        .rpush(listKey(runId), json)
        .expire(listKey(runId), maxAgeSeconds)
        .publish(channel(runId), json)
        .exec()
        .then(() => undefined);
    },
    async read(runId, after) {
      const items = await redis.lrange(listKey(runId), 0, -1);
      const out: RunEventRecord[] = [];
      for (const item of items) {
        const record = JSON.parse(item) as RunEventRecord;
        if (record.id > after) out.push(record);
      }
      return out;
    },
    async subscribe(runId, listener) {
      let set = listeners.get(runId);
      if (!set) {
        set = new Set();
        listeners.set(runId, set);
        await getSubscriber().subscribe(channel(runId));
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
      await redis.expire(listKey(runId), seconds);
    },
    async close() {
      listeners.clear();
      if (subscriber) {
        const sub = subscriber;
        subscriber = undefined;
        await sub.quit().catch(() => sub.disconnect());
      }
    },
  };
}
