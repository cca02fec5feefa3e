import type { Redis } from 'ioredis';

/**
 * A connection of its own for SUBSCRIBE, which waits for Redis while it is down (an offline queue, unlike the
 * shared fail-fast client) and sends no ready check. The ready check is an INFO sent as the connection opens;
 * ioredis 5.8.2 and later can write a SUBSCRIBE queued meanwhile before it, and Redis then refuses the INFO
 * ("Connection in subscriber mode, only subscriber commands may be used", ioredis issue #2037): the connection
 * errors and is opened again, and the subscriptions made during that first connect are lost until retried.
 * Seen in the oracle bench on PostgreSQL + Redis. SUBSCRIBE is served while Redis loads its data, so the
 * check adds nothing here.
 */
export function duplicateSubscriber(redis: Redis): Redis {
  const sub = redis.duplicate({
    enableAutoPipelining: false,
    enableOfflineQueue: true,
    enableReadyCheck: false,
  });
  // Failures surface through the subscriptions (retried by their owners); ioredis reconnects by itself.
  sub.on('error', () => undefined);
  return sub;
}
