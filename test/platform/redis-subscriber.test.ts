// The subscriber connections (run event log, control bus, socket.io adapter) against the real Redis: a SUBSCRIBE
// issued while the connection is being opened (a retry timer firing as the connection comes back after an
// outage, or the first follower of a fresh instance under load) subscribes, with no connection error. With
// ioredis's ready check on, that SUBSCRIBE goes out before the check's INFO, Redis refuses the INFO in
// subscriber mode, and the connection errors and is opened again (ioredis issue #2037).
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { duplicateSubscriber } from '../../server/redis-subscriber.js';
import { openRedis } from '../../server/server.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../helpers/redis.js';

const opened: Redis[] = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.disconnect();
});

describe.runIf(TEST_REDIS_URL)('duplicateSubscriber', () => {
  it('a SUBSCRIBE sent as the connection opens subscribes, and the connection has no error', async () => {
    const redis = openRedis(TEST_REDIS_URL as string);
    opened.push(redis);
    await new Promise((resolve) => redis.once('ready', resolve));
    const channel = `${testRedisPrefix('sub')}channel`;
    const sub = duplicateSubscriber(redis);
    opened.push(sub);
    const errors: Error[] = [];
    sub.on('error', (err: Error) => errors.push(err));
    const heard = new Promise<string>((resolve) => sub.on('message', (_ch: string, m: string) => resolve(m)));
    const subscribed = new Promise<unknown>((resolve, reject) =>
      sub.once('connect', () => void sub.subscribe(channel).then(resolve, reject)),
    );
    await expect(subscribed).resolves.toBe(1);
    await redis.publish(channel, 'hello');
    await expect(heard).resolves.toBe('hello');
    expect(errors.map((e) => e.message)).toEqual([]);
  });
});
