import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { PoolLoad } from '../../db/bounded-pool.js';
import { OracleHttpError } from '../oracle-http-error.js';

/** What admission control reads: how busy this process's dependencies are now. */
export interface LoadSources {
  /** The PostgreSQL pool (undefined on PGlite). */
  pool: () => PoolLoad | undefined;
  /** Run events held here that Redis has not taken yet. */
  unstoredEvents: () => number;
  /** The event loop's recent delay, in ms (the 99th percentile over the last sampling window). */
  loopDelayMs: () => number;
}

/** The budgets past which a new turn is refused (0: that check is off). */
export interface AdmissionBudgets {
  /** Callers waiting for a database connection. */
  maxDbWaiting: number;
  /** How long the caller waiting longest for a database connection has waited, in ms. */
  maxDbWaitMs: number;
  /** Events waiting for Redis in this process. */
  maxUnstoredEvents: number;
  /** Event-loop delay, in ms. */
  maxLoopDelayMs: number;
  /** What `Retry-After` says, in seconds. */
  retryAfterSeconds: number;
}

/**
 * Admission before work: a new turn is refused with 503 `unavailable` and `Retry-After` while the database pool,
 * Redis or the event loop is past its budget, before the turn reads or writes anything. A turn that was admitted
 * runs to its end (its statements wait for a connection and are retried), so load shows as refusals at the
 * door, never as turns failing half-way.
 */
export class Admission {
  readonly #sources: LoadSources;
  readonly #budgets: AdmissionBudgets;

  constructor(sources: LoadSources, budgets: AdmissionBudgets) {
    this.#sources = sources;
    this.#budgets = budgets;
  }

  /** Why a new turn would be refused now, or undefined when it is admitted. */
  overBudget(): string | undefined {
    const { maxDbWaiting, maxDbWaitMs, maxUnstoredEvents, maxLoopDelayMs } = this.#budgets;
    const pool = this.#sources.pool();
    if (maxDbWaiting > 0 && pool && pool.waiting > maxDbWaiting) return 'database';
    if (maxDbWaitMs > 0 && pool && pool.oldestWaitMs > maxDbWaitMs) return 'database';
    if (maxUnstoredEvents > 0 && this.#sources.unstoredEvents() > maxUnstoredEvents) return 'redis';
    if (maxLoopDelayMs > 0 && this.#sources.loopDelayMs() > maxLoopDelayMs) return 'event_loop';
    return undefined;
  }

  /** Throws the 503 refusal when a budget is exceeded. */
  admit(): void {
    const over = this.overBudget();
    if (over === undefined) return;
    throw new OracleHttpError(503, 'unavailable', 'The oracle is at capacity; try again shortly.', {
      retryAfter: this.#budgets.retryAfterSeconds,
    });
  }
}

/**
 * The event loop's delay, sampled: the 99th percentile of the last whole `windowMs` or of the one going on,
 * whichever is higher (a stall shows from the first request after it). `close()` stops it.
 */
export function sampleLoopDelay(windowMs = 500): { delayMs: () => number; close: () => void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let recent = 0;
  const timer = setInterval(() => {
    recent = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
    histogram.reset();
  }, windowMs);
  timer.unref();
  return {
    delayMs: () => Math.max(recent, histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0),
    close: () => {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
