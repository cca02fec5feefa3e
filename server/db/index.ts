import type { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresDialect, sql, type KyselyPlugin } from 'kysely';
import { Migrator, type MigrationResultSet } from 'kysely';
import pg from 'pg';
import { createBoundedPool, type PoolBounds, type PoolLoad } from './bounded-pool.js';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';
import { withTimeout } from '../with-timeout.js';
import { PGliteDialect } from './pglite-dialect.js';
import { openPglite } from './pglite-open.js';
import { inSchema } from './pglite-schema.js';

export type { Database } from './schema.js';

/**
 * Where the database lives: PostgreSQL through `pg`, or embedded PGlite (on disk, or in memory). With
 * `schema`, the handle works in that schema (its search path), which must exist. For PGlite, `instance`
 * shares one embedded database between handles (each in its own schema); closing a handle leaves it open.
 */
export type DbTarget =
  | { kind: 'postgres'; url: string; schema?: string; poolSize?: number; bounds?: Partial<PoolBounds> }
  | { kind: 'pglite'; dataDir?: string; schema?: string; instance?: PGlite };

/** The database handle every part receives. */
export interface Db {
  readonly kysely: Kysely<Database>;
  readonly kind: DbTarget['kind'];
  /** The PostgreSQL schema this handle works in, when not the default search path. */
  readonly schema: string | undefined;
  /**
   * One round trip (`select 1`); rejects when the database is unreachable or has not answered after
   * `timeoutMs` (on PostgreSQL the connection it used is then discarded, not kept by a stalled query).
   */
  ping(timeoutMs?: number): Promise<void>;
  /**
   * A statement on a hot path, written as SQL text with `$1`… parameters (or built once by kysely, see
   * prepared-query.ts). On PostgreSQL it runs as a named prepared statement: each pooled connection parses and
   * plans it once, later calls only bind and execute (the dial's account lookup: half the database time of the
   * same query sent as text). `name` must be unique per text. On PGlite the same text runs through kysely.
   */
  prepared<R>(name: string, text: string, values: readonly unknown[]): Promise<R[]>;
  /** How busy the PostgreSQL pool is now; undefined on PGlite (no pool: one query at a time in process). */
  load(): PoolLoad | undefined;
  close(): Promise<void>;
}

// node-postgres returns int8 as string and PGlite as number; make both return numbers for counts that fit.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
});

/** The bounded waits of a PostgreSQL pool when the caller names none (server/platform-config.ts has the same defaults). */
const DEFAULT_POOL_BOUNDS: PoolBounds = { statementTimeoutMs: 2000, acquireTimeoutMs: 500 };

/** Opens the database. Does not run migrations; call {@link migrateToLatest}. */
export async function openDb(target: DbTarget): Promise<Db> {
  if (target.kind === 'postgres') {
    const { pool, ping, load } = createBoundedPool(
      {
        connectionString: target.url,
        max: target.poolSize ?? 10,
        // A search_path per connection gives each test file its own schema on the real server.
        ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
      },
      { ...DEFAULT_POOL_BOUNDS, ...target.bounds },
    );
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const prepared = async <R>(name: string, text: string, values: readonly unknown[]): Promise<R[]> => {
      // The bounded pool's connect: its acquire timeout, and a connection whose server stopped answering is
      // discarded on release.
      const client = await pool.connect();
      try {
        const result = await client.query<R & pg.QueryResultRow>({ name, text, values: [...values] });
        return result.rows;
      } finally {
        client.release();
      }
    };
    return makeDb(kysely, 'postgres', target.schema, { ping, prepared, load });
  }
  let pglite = target.instance;
  pglite ??= await openPglite(target.dataDir);
  await pglite.waitReady;
  const shared = target.instance !== undefined;
  const dialect = new PGliteDialect(
    shared || target.schema ? inSchema(pglite, target.schema, shared) : pglite,
  );
  return makeDb(new Kysely<Database>({ dialect, plugins: [yieldToEventLoop] }), 'pglite', target.schema);
}

/**
 * PGlite runs a query inside this process and settles its promise without a turn of the event loop, so a chain
 * of queries (a request, a chat turn) ran to its end before any socket write, timer or `nextTick` callback: on
 * the embedded database, a streamed turn's first event left together with its last. Each result is therefore
 * handed over after one `setImmediate`, which lets the event loop serve its I/O between two queries.
 */
const yieldToEventLoop: KyselyPlugin = {
  transformQuery: ({ node }) => node,
  transformResult: async ({ result }) => {
    await new Promise((resolve) => setImmediate(resolve));
    return result;
  },
};

function makeDb(
  kysely: Kysely<Database>,
  kind: DbTarget['kind'],
  schema: string | undefined,
  pool?: Pick<Db, 'prepared'> & { ping: (timeoutMs: number) => Promise<void>; load: () => PoolLoad },
): Db {
  let closed = false;
  return {
    kysely,
    kind,
    schema,
    prepared:
      pool?.prepared ??
      (async <R>(_name: string, text: string, values: readonly unknown[]) =>
        (await kysely.executeQuery<R>(CompiledQuery.raw(text, [...values]))).rows),
    load: () => pool?.load(),
    async ping(timeoutMs = 2000) {
      if (pool) return pool.ping(timeoutMs);
      await withTimeout(sql`select 1`.execute(kysely), timeoutMs, 'database ping');
    },
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy();
    },
  };
}

function migratorOf(db: Db): Migrator {
  return new Migrator({
    db: db.kysely,
    // The migration tables live in the handle's schema, so isolated test schemas never see each other's.
    ...(db.schema ? { migrationTableSchema: db.schema } : {}),
    provider: { getMigrations: () => Promise.resolve(migrations) },
  });
}

/** The names of the migrations not yet applied to `db`, in order (all of them on a new database). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = await migratorOf(db).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * Runs every pending migration; throws with the failing migration's name and cause. On PostgreSQL kysely
 * holds an advisory lock (`pg_advisory_lock`) and applies the pending migrations in one transaction, so
 * instances that start together take turns, the later ones find nothing left to do, and a failed migration
 * leaves the schema as it was.
 */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const migrator = migratorOf(db);
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed`, { cause: result.error });
  }
  return result;
}
