import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Logger } from '../../logger.js';
import { maskPhone } from '../../logger.js';

/** Counts phone visits in memory and writes them in one statement per interval. */
export interface VisitBatcher {
  /** Counts one visit; never touches the database on the request path. */
  readonly record: (phoneNumber: string) => Promise<void>;
  /** Writes what has been counted so far (one upsert for all phones). */
  readonly flush: () => Promise<void>;
  /** Stops the timer and writes what is left. */
  readonly close: () => Promise<void>;
}

/**
 * Write-behind for the per-dial phone visit: written inline, the upsert is the largest cost on the dial path
 * with the embedded database (see docs/performance.md). Visits are analytics, not accounts: a crash loses at most
 * one interval of counts, and a failed write is logged and dropped rather than retried forever.
 */
export function createVisitBatcher(db: Db, logger: Logger, intervalMs = 1000): VisitBatcher {
  let pending = new Map<string, number>();
  let writing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    if (pending.size === 0) return writing;
    const batch = pending;
    pending = new Map();
    // Two array parameters whatever the batch size: cheap to build and bind, and no ceiling on the number of
    // phones (a VALUES list binds two parameters per row, and PostgreSQL stops at 65,535).
    const phones = [...batch.keys()];
    const counts = [...batch.values()];
    writing = writing.then(async () => {
      try {
        await sql`
          insert into phones (phone_number, visit_count)
          select * from unnest(${phones}::text[], ${counts}::int[])
          on conflict (phone_number) do update
            set last_seen = now(), visit_count = phones.visit_count + excluded.visit_count`.execute(
          db.kysely,
        );
      } catch (err) {
        logger.warn(
          { err, phones: phones.length, sample: phones[0] && maskPhone(phones[0]) },
          'ussd: writing phone visits failed; these counts are dropped',
        );
      }
    });
    return writing;
  };

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();

  return {
    record: (phoneNumber) => {
      pending.set(phoneNumber, (pending.get(phoneNumber) ?? 0) + 1);
      return Promise.resolve();
    },
    flush,
    close: async () => {
      clearInterval(timer);
      await flush();
    },
  };
}
