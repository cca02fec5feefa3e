import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { migrateToLatest, openDb, type Db } from '../../server/db/index.js';

/**
 * The real PostgreSQL server of the production column (DATABASE_URL, as CI sets it), or undefined on
 * embedded defaults: tests that need the server itself run only when it is set (`describe.runIf`).
 */
export const TEST_DATABASE_URL = process.env['DATABASE_URL'] || undefined;

export type TestDb = Db & AsyncDisposable;

/**
 * The embedded database of this test worker, started on first use and shared by every handle opened in
 * it, each in a schema of its own (vitest runs the files of a worker one after another, without isolating
 * their modules, so one instance serves them all). It ends with the worker.
 */
let workerPglite: Promise<PGlite> | undefined;

function sharedPglite(): Promise<PGlite> {
  workerPglite ??= startTestPglite();
  return workerPglite;
}

/**
 * A PGlite in memory started from the run's template (test/global-setup.ts): an initialised, empty data
 * directory, loaded in about half a second instead of running initdb.
 */
export async function startTestPglite(): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const instance = new PGlite({ loadDataDir: new Blob([await readFile(inject('pgliteTemplate'))]) });
  await instance.waitReady;
  return instance;
}

/**
 * A migrated database of its own for one test file, app or test, in a fresh schema (dropped on close):
 * - DATABASE_URL set (CI): on that PostgreSQL server;
 * - otherwise: in the test worker's embedded PGlite, which starts once per worker (about half a second,
 *   from the run's template); each handle works in its own schema, so handles never see each other's
 *   rows.
 */
export async function openTestDb(): Promise<TestDb> {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  if (TEST_DATABASE_URL === undefined) {
    const instance = await sharedPglite();
    await instance.exec(`create schema ${schema}`);
    const db = await openDb({ kind: 'pglite', instance, schema });
    await migrateToLatest(db);
    return withClose(db, () =>
      instance.exec(`drop schema if exists ${schema} cascade`).then(() => undefined),
    );
  }
  const url = TEST_DATABASE_URL;
  const db = await openDb({ kind: 'postgres', url, schema, poolSize: 4 });
  try {
    await underSchemaLock(url, async () => {
      await adminQuery(url, `create schema ${schema}`);
      // Other runs on the same server (other checkouts, without this lock) drop schemas too: try again.
      for (let attempt = 1; ; attempt++) {
        try {
          await migrateToLatest(db);
          break;
        } catch (err) {
          const code = (err as { cause?: { code?: unknown } }).cause?.code;
          if (attempt >= 5 || !CATALOG_RACE_CODES.has(String(code))) throw err;
        }
      }
    });
  } catch (err) {
    await db.close();
    throw err;
  }
  return withClose(db, () =>
    underSchemaLock(url, () => adminQuery(url, `drop schema if exists ${schema} cascade`)),
  );
}

/**
 * What a catalog read fails with when a schema or table it lists is dropped under it: 3F000 schema, 42P01
 * relation does not exist, XX000 cache lookup failed.
 */
const CATALOG_RACE_CODES = new Set(['3F000', '42P01', 'XX000']);

/** Key of the advisory lock that test runs on one PostgreSQL take around schema migrations and drops. */
const SCHEMA_LOCK = 715_015;

/**
 * Runs `work` holding a PostgreSQL advisory lock shared by every test worker (and every run of this
 * suite on the same server). Kysely's migrator reads the catalog of every schema (`pg_get_serial_sequence`
 * by name); a schema that another worker drops at that moment fails the read (see CATALOG_RACE_CODES).
 * Migrations and drops therefore take turns.
 */
async function underSchemaLock<T>(url: string, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [SCHEMA_LOCK]);
    return await work();
  } finally {
    await client.end();
  }
}

/** `db` whose close (and dispose) also runs `drop`, once. */
function withClose(db: Db, drop: () => Promise<void>): TestDb {
  const closeDb = db.close.bind(db);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= closeDb().then(drop));
  return Object.assign(db, { close, [Symbol.asyncDispose]: close });
}

/** Runs one statement on its own short-lived connection (create or drop a schema or a database). */
export async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A database that a child process (a tool, the simulator) opens from its environment. */
export interface ThrowawayDatabase extends AsyncDisposable {
  /** The variables that point a process at it: DATABASE_URL, or PGLITE_DATA_DIR on embedded defaults. */
  env: Record<string, string>;
  /** Its PostgreSQL URL; undefined on embedded defaults. */
  url: string | undefined;
  /** True on PGlite: one process at a time may open it. */
  exclusive: boolean;
  /** Opens it from this process (migrated). On PGlite, close it before a child process opens it. */
  open(): Promise<Db>;
  drop(): Promise<void>;
}

/**
 * A new empty database, dropped on dispose: on PostgreSQL (DATABASE_URL set) a whole database, so code
 * that opens it by URL needs nothing special; on embedded defaults a PGlite data directory on disk,
 * a copy of the template directory (not yet migrated).
 */
export async function createThrowawayDatabase(label: string): Promise<ThrowawayDatabase> {
  if (TEST_DATABASE_URL === undefined) {
    const dataDir = await mkdtemp(path.join(tmpdir(), `${label}-`));
    await cp(inject('pgliteTemplateDir'), dataDir, { recursive: true });
    const drop = () => rm(dataDir, { recursive: true, force: true });
    return {
      env: { PGLITE_DATA_DIR: dataDir, DATABASE_URL: '' },
      url: undefined,
      exclusive: true,
      open: () => openMigrated({ kind: 'pglite', dataDir }),
      drop,
      [Symbol.asyncDispose]: drop,
    };
  }
  const name = `${label}_${randomBytes(5).toString('hex')}`;
  await adminQuery(TEST_DATABASE_URL, `create database ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  const drop = () => adminQuery(TEST_DATABASE_URL, `drop database if exists ${name} with (force)`);
  return {
    env: { DATABASE_URL: url.toString() },
    url: url.toString(),
    exclusive: false,
    open: () => openMigrated({ kind: 'postgres', url: url.toString(), poolSize: 2 }),
    drop,
    [Symbol.asyncDispose]: drop,
  };
}

async function openMigrated(target: Parameters<typeof openDb>[0]): Promise<Db> {
  const db = await openDb(target);
  await migrateToLatest(db);
  return db;
}
