import { MemoryStore, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Logger } from '../logger.js';
import { redisOutage, type OutageNotice } from './outage-notice.js';
import { withTimeout } from '../with-timeout.js';

/**
 * A RedisStore that recovers when Redis was unreachable while the limiter started: the Lua script's SHA
 * is loaded once at start-up, and upstream keeps a rejected load forever. Retrying a failed load on the
 * next request lets the limiter heal by itself when Redis returns.
 */
class HealingRedisStore extends RedisStore {
  override increment(key: string): ReturnType<RedisStore['increment']> {
    this.incrementScriptSha = this.incrementScriptSha.catch(() => this.loadIncrementScript());
    return super.increment(key);
  }
}

/**
 * Counts in Redis, and in this process while Redis does not answer. The choice when Redis is down: the
 * limiter neither fails the request (every caller would get the unavailable reply because of a counter)
 * nor lets everything through (the outage is exactly when a flood hurts most); each instance keeps
 * limiting on its own counts, so the limit holds per instance until Redis answers again, then the shared
 * counts take over. The outage is logged once for the whole process (its Redis client's {@link OutageNotice}).
 */
class FallbackStore implements Store {
  readonly localKeys = false;
  readonly #local = new MemoryStore();
  readonly #shared: Store;
  readonly #outage: OutageNotice;

  constructor(
    shared: Store,
    outage: OutageNotice,
    readonly prefix: string,
  ) {
    this.#shared = shared;
    this.#outage = outage;
  }

  async init(options: Options): Promise<void> {
    this.#local.init(options);
    await Promise.resolve(this.#shared.init?.(options)).catch((err: unknown) => this.#failed(err));
  }

  async increment(key: string): Promise<IncrementResponse> {
    try {
      const counted = await this.#shared.increment(key);
      this.#outage.recovered();
      return counted;
    } catch (err) {
      this.#failed(err);
      return this.#local.increment(key);
    }
  }

  async decrement(key: string): Promise<void> {
    await Promise.resolve(this.#shared.decrement(key)).catch(() => this.#local.decrement(key));
  }

  async resetKey(key: string): Promise<void> {
    await this.#local.resetKey(key);
    await Promise.resolve(this.#shared.resetKey(key)).catch((err: unknown) => this.#failed(err));
  }

  shutdown(): void {
    this.#local.shutdown();
  }

  #failed(err: unknown): void {
    this.#outage.failed(err);
  }
}

/**
 * The store of a rate limit whose counts are shared through Redis (keys `<prefix><key>`), each command
 * giving up after 1 s, and kept in this process while Redis does not answer ({@link FallbackStore}).
 */
export function createFallbackRedisStore(redis: Redis, prefix: string, logger: Logger): FallbackStore {
  const shared = new HealingRedisStore({
    prefix,
    sendCommand: (command: string, ...args: string[]) =>
      withTimeout(redis.call(command, ...args) as Promise<RedisReply>, 1000, `redis ${command}`),
  });
  return new FallbackStore(shared, redisOutage(redis, logger), prefix);
}
