import { sql, type Kysely, type Transaction } from 'kysely';
import type { OracleError } from '../../../contracts/errors.js';
import type { Database } from '../../db/schema.js';

/** The per-user quotas of the agent service (contracts/errors.ts `OracleError.quota.name`). */
export type QuotaName = NonNullable<OracleError['quota']>['name'];

/** A creation refused because it would pass a quota; answered 403 `quota_exceeded` (http/oracle-error.ts). */
export class QuotaExceededError extends Error {
  override name = 'QuotaExceededError';
  constructor(
    readonly quota: QuotaName,
    readonly limit: number,
    what: string,
  ) {
    super(`Quota reached: at most ${limit} ${what}.`);
  }
}

/** One quota a write must stay within. */
export interface QuotaCheck {
  name: QuotaName;
  /** The most allowed; 0: no quota (nothing is counted). */
  limit: number;
  /** What the limit counts, for the message (`sessions per user`). */
  what: string;
  /** What is counted, named once per owner of the count (`sessions:<did>`): writes under one key queue. */
  key: string;
  /** How many there are now, read inside the transaction. */
  count(trx: Transaction<Database>): Promise<number>;
}

/**
 * Runs `write` in a transaction after checking each quota, exactly under concurrency: the transaction first
 * takes a PostgreSQL advisory lock per quota key (`pg_advisory_xact_lock`, in a fixed order so two writes never
 * wait on each other), so writes under one key (one user's sessions, one room's members) count and insert one
 * after another, on every instance. Throws {@link QuotaExceededError} when a count is at its limit; nothing is
 * written then. Without a quota in force (all limits 0) `write` runs without the locks.
 */
export async function withinQuotas<T>(
  db: Kysely<Database>,
  checks: QuotaCheck[],
  write: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const active = checks.filter((c) => c.limit > 0).sort((a, b) => (a.key < b.key ? -1 : 1));
  return db.transaction().execute(async (trx) => {
    for (const check of active) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`oracle-quota:${check.key}`}, 0))`.execute(
        trx,
      );
    }
    for (const check of active) {
      if ((await check.count(trx)) >= check.limit) {
        throw new QuotaExceededError(check.name, check.limit, check.what);
      }
    }
    return write(trx);
  });
}

/** `count(*)` of a query as a number (PostgreSQL answers a bigint as a string). */
export function countOf(row: { n: string | number | bigint } | undefined): number {
  return Number(row?.n ?? 0);
}
