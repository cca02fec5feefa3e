import { systemClock, type Clock } from './clock.js';

/** How one store call is tried again (see {@link retryStore}). */
export interface StoreRetry<T> {
  /** Pause between two tries. */
  everyMs: number;
  /** Gives up once this long has passed since the first try (default: never). */
  forMs?: number;
  /** Whether a failure is tried again (default: every failure); one that is not is thrown at once. */
  retryOn?: (err: unknown) => boolean;
  /** Whether an answer is the one waited for (default: any); another is asked again after the pause. */
  until?: (value: T) => boolean;
  /** Checked after a try that did not do: true gives up (a closing instance). */
  stopped?: () => boolean;
  clock?: Clock;
}

/**
 * Calls `attempt` until it answers (and its answer is the one `until` waits for), pausing `everyMs` between
 * tries: the database or Redis may be away for a while (stopped, failing over, a busy pool), and the callers
 * wait through that rather than fail at the first error. Giving up (`forMs` passed, or `stopped`): the last
 * try's error is thrown; a last try that answered without what `until` waits for is answered as it is.
 */
export async function retryStore<T>(attempt: () => Promise<T>, options: StoreRetry<T>): Promise<T> {
  const { everyMs, retryOn, until, stopped, clock = systemClock } = options;
  const deadline = options.forMs === undefined ? Infinity : clock.now() + options.forMs;
  for (;;) {
    let value: T;
    try {
      value = await attempt();
    } catch (err) {
      if ((retryOn && !retryOn(err)) || stopped?.() === true || clock.now() >= deadline) throw err;
      await clock.sleep(everyMs);
      continue;
    }
    if (!until || until(value) || stopped?.() === true || clock.now() >= deadline) return value;
    await clock.sleep(everyMs);
  }
}

/** A database error no retry cures (a constraint, a bad value): everything else may be tried again. */
export function isPermanent(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // PostgreSQL SQLSTATE classes 22 (data) and 23 (integrity constraints).
  return typeof code === 'string' && /^2[23]/.test(code);
}

/** How long a run that ended keeps trying to record its end while the database does not answer. */
const END_RETRY_MS = 30_000;

/** How long a new run keeps trying to record its question and itself before the turn fails. */
export const RECORD_RETRY_MS = 5000;

/** Pause between two tries to record a run's start or end. */
const STORE_RETRY_EVERY_MS = 250;

/**
 * How the run manager records a run's start and end: runs `store` until it succeeds, since the database may be
 * down for a while (stopped, paused, failing over), and a run that cannot record its end would otherwise wait
 * for its lease to expire and be run again elsewhere. Gives up after `retryMs` (default 30 s), at a permanent
 * error, or once `stopped` (shutdown: then whoever claims the run ends it).
 */
export function runRecordRetry(
  stopped: () => boolean,
  clock?: Clock,
): <T>(store: () => Promise<T>, retryMs?: number) => Promise<T> {
  return (store, retryMs = END_RETRY_MS) =>
    retryStore(store, {
      everyMs: STORE_RETRY_EVERY_MS,
      forMs: retryMs,
      retryOn: (err) => !isPermanent(err),
      stopped,
      clock,
    });
}
