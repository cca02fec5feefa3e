import type { Logger } from '../logger.js';

/** What an outage's first warning says of the error: its message and code, never its stack. */
function summary(err: unknown): { message: string; code?: string } {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? { message: err.message, code } : { message: err.message };
  }
  return { message: String(err) };
}

/**
 * The log lines of one dependency's outages: one warning when it starts failing, one when it answers again
 * (how long it was away, how many failures were not logged). Everything that uses the dependency reports its
 * failures and successes here instead of logging each: a 10 s Redis outage with hundreds of streams in flight
 * is two lines, not one per event.
 */
export class OutageNotice {
  readonly #logger: Logger;
  readonly #what: string;
  readonly #degraded: string;
  readonly #now: () => number;
  #since: number | undefined = undefined;
  #failures = 0;

  /**
   * @param what the dependency, as the log names it ("Redis")
   * @param degraded what the service does meanwhile, said once in the first warning
   */
  constructor(logger: Logger, what: string, degraded: string, now: () => number = Date.now) {
    this.#logger = logger;
    this.#what = what;
    this.#degraded = degraded;
    this.#now = now;
  }

  /** Whether an outage is going on (a failure since the last success). */
  get down(): boolean {
    return this.#since !== undefined;
  }

  /** A use of the dependency failed: the first failure of an outage is logged, the others counted. */
  failed(err: unknown): void {
    this.#failures++;
    if (this.#since !== undefined) return;
    this.#since = this.#now();
    this.#logger.warn({ err: summary(err) }, `${this.#what} does not answer: ${this.#degraded}`);
  }

  /** A use of the dependency succeeded (or its connection is ready): ends the outage, if one is going on. */
  recovered(): void {
    if (this.#since === undefined) return;
    const downMs = this.#now() - this.#since;
    const failures = this.#failures;
    this.#since = undefined;
    this.#failures = 0;
    this.#logger.warn({ downMs, failures }, `${this.#what} answers again`);
  }
}

const REDIS_DEGRADED =
  'run events wait in memory, run slots and rate limits count per instance, other instances hear nothing from ' +
  'this one until it does (reconnecting)';

const noticesByClient = new WeakMap<object, OutageNotice>();

/**
 * The outage notice of a Redis client: one per client, shared by everything that uses it (the connection's own
 * `error` and `ready` events, the run event log, the socket adapter, the limits), so an outage is logged once.
 */
export function redisOutage(redis: object, logger: Logger): OutageNotice {
  let notice = noticesByClient.get(redis);
  if (!notice) {
    notice = new OutageNotice(logger, 'Redis', REDIS_DEGRADED);
    noticesByClient.set(redis, notice);
  }
  return notice;
}
