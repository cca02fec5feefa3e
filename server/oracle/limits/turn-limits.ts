import { MemoryStore, type Options, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import type { OracleServiceConfig } from '../config.js';
import type { Logger } from '../../logger.js';
import { createFallbackRedisStore } from '../../stores/fallback-rate-limit-store.js';
import { redisOutage } from '../../stores/outage-notice.js';
import { OracleHttpError } from '../oracle-http-error.js';
import {
  createFallbackRunSlots,
  createMemoryRunSlots,
  createRedisRunSlots,
  type RunSlot,
  type RunSlots,
} from './run-slots.js';

/** The window of ORACLE_TURNS_PER_MINUTE. */
const WINDOW_MS = 60_000;
/**
 * How long a run slot lives if its run never reports its end (the instance died): longer than any turn the
 * service runs (a long answer with a few browser tools takes minutes), short enough that a crash does not
 * hold a user back for long.
 */
const RUN_SLOT_TTL_MS = 10 * 60_000;
/** A count no user reaches: the limit of a slot taken whatever the count. */
const UNLIMITED = 2 ** 31;

/** What a refusal for too many turns in flight tells the client to wait: a turn usually ends within seconds. */
export const RUNS_RETRY_AFTER_SECONDS = 2;

/** The per-user limits of the agent service (docs/agent-api.md), checked before a turn writes anything. */
export interface TurnLimits {
  /** Refuses a message over ORACLE_MESSAGE_MAX_CHARS (413 `payload_too_large`). */
  checkMessage(message: string): void;
  /** Counts a turn of the user in this minute's window; over ORACLE_TURNS_PER_MINUTE, 429 `too_many_turns`. */
  countTurn(userDid: string): Promise<void>;
  /**
   * Takes a run slot for the turn; with ORACLE_MAX_CONCURRENT_RUNS other sessions of the user running, 429
   * `too_many_runs`. Free it with {@link freeRun} when the run ends (or when the turn is refused later).
   */
  takeRun(userDid: string, slot: RunSlot): Promise<void>;
  freeRun(userDid: string, slot: RunSlot): Promise<void>;
  /**
   * Takes the slot of a run this instance resumes (its instance died or let go, and the slot it held may be
   * gone with that instance's memory), whatever the count: the run is under way already. Freed when it ends.
   */
  holdRun(userDid: string, slot: RunSlot): Promise<void>;
  /**
   * Both checks of a turn at once ({@link countTurn} and {@link takeRun}: one round trip to Redis, pipelined);
   * a slot taken for a turn the minute's count refuses is given back. The first refusal is thrown.
   */
  admit(userDid: string, slot: RunSlot): Promise<void>;
  /**
   * Gives back what {@link admit} took (whether it admitted or refused) for a turn refused for another reason:
   * its count in the minute and its slot.
   */
  unadmit(userDid: string, slot: RunSlot): Promise<void>;
  close(): void;
}

/**
 * Counts in Redis when REDIS_URL is set (shared by every instance), in memory otherwise; while Redis does not
 * answer, in memory (one warning per outage), as the USSD rate limiter does.
 */
export async function createTurnLimits(options: {
  config: OracleServiceConfig;
  redis: Redis | undefined;
  /** Prefix of the limits' Redis keys (PartContext.redisPrefix + `oracle:limits:`). */
  redisPrefix: string;
  logger: Logger;
}): Promise<TurnLimits> {
  const { config, redis, logger } = options;
  const turns: Store = redis
    ? createFallbackRedisStore(redis, `${options.redisPrefix}turns:`, logger)
    : new MemoryStore();
  await turns.init?.({ windowMs: WINDOW_MS } as Options);
  const slots: RunSlots = redis
    ? createFallbackRunSlots(
        createRedisRunSlots(redis, `${options.redisPrefix}runs:`),
        redisOutage(redis, logger),
      )
    : createMemoryRunSlots();

  const limits: TurnLimits = {
    checkMessage(message) {
      if (message.length > config.ORACLE_MESSAGE_MAX_CHARS) {
        throw new OracleHttpError(
          413,
          'payload_too_large',
          `The message is ${message.length} characters long; this oracle accepts at most ${config.ORACLE_MESSAGE_MAX_CHARS}.`,
        );
      }
    },
    async countTurn(userDid) {
      const limit = config.ORACLE_TURNS_PER_MINUTE;
      if (limit === 0) return;
      const { totalHits, resetTime } = await turns.increment(userDid);
      if (totalHits <= limit) return;
      const retryAfter = Math.max(
        1,
        Math.ceil(((resetTime?.getTime() ?? Date.now() + WINDOW_MS) - Date.now()) / 1000),
      );
      throw new OracleHttpError(
        429,
        'too_many_turns',
        `You sent more than ${limit} messages this minute; try again in ${retryAfter} s.`,
        { retryAfter },
      );
    },
    async takeRun(userDid, slot) {
      const limit = config.ORACLE_MAX_CONCURRENT_RUNS;
      if (limit === 0) return;
      if (await slots.take(userDid, slot, limit, RUN_SLOT_TTL_MS)) return;
      throw new OracleHttpError(
        429,
        'too_many_runs',
        `You have ${limit} answers in progress; wait for one to finish (or abort it) and try again.`,
        { retryAfter: RUNS_RETRY_AFTER_SECONDS },
      );
    },
    async holdRun(userDid, slot) {
      if (config.ORACLE_MAX_CONCURRENT_RUNS === 0) return;
      await slots
        .take(userDid, slot, UNLIMITED, RUN_SLOT_TTL_MS)
        .then(() => undefined)
        .catch((err: unknown) =>
          logger.warn({ err }, 'limits: the slot of a resumed run could not be taken (it runs uncounted)'),
        );
    },
    async freeRun(userDid, slot) {
      if (config.ORACLE_MAX_CONCURRENT_RUNS === 0) return;
      await slots
        .free(userDid, slot)
        .catch((err: unknown) =>
          logger.warn({ err }, 'limits: a run slot could not be freed (it expires by itself)'),
        );
    },
    async admit(userDid, slot) {
      const [counted, taken] = await Promise.allSettled([
        this.countTurn(userDid),
        this.takeRun(userDid, slot),
      ]);
      if (counted.status === 'rejected') {
        if (taken.status === 'fulfilled') await this.freeRun(userDid, slot);
        throw counted.reason;
      }
      if (taken.status === 'rejected') throw taken.reason;
    },
    async unadmit(userDid, slot) {
      const uncounted =
        config.ORACLE_TURNS_PER_MINUTE === 0
          ? undefined
          : Promise.resolve(turns.decrement(userDid)).catch((err: unknown) =>
              logger.warn({ err }, 'limits: a refused turn could not be uncounted (it counts this minute)'),
            );
      await Promise.all([uncounted, this.freeRun(userDid, slot)]);
    },
    close() {
      void turns.shutdown?.();
    },
  };
  return limits;
}
