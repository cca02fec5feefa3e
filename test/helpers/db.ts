import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateToLatest, openDb, type Db } from '../../server/db/index.js';

export type TestDb = Db & AsyncDisposable;

/**
 * A migrated database of its own for one test file (or one test):
 * - DATABASE_URL set (CI): a fresh schema on the real PostgreSQL server, dropped on dispose;
 * - otherwise: an in-memory PGlite.
 */
export async function openTestDb(): Promise<TestDb> {
  const url = process.env['DATABASE_URL'];
  if (!url) {
    const db = await openDb({ kind: 'pglite' });
    await migrateToLatest(db);
    return Object.assign(db, { [Symbol.asyncDispose]: () => db.close() });
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `create schema ${schema}`);
  const db = await openDb({ kind: 'postgres', url, schema, poolSize: 4 });
  await migrateToLatest(db);
  const closeDb = db.close.bind(db);
  const close = async (): Promise<void> => {
    await closeDb();
    await adminQuery(url, `drop schema if exists ${schema} cascade`);
  };
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
