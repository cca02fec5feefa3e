import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openDb } from '../../../server/db/index.js';
import { migrations } from '../../../server/db/migrations/index.js';
import { openTestDb, startTestPglite } from '../../helpers/db.js';

const databaseUrl = process.env['DATABASE_URL'];

async function appliedMigrations(db: Awaited<ReturnType<typeof openTestDb>>): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
    db.kysely,
  );
  return rows.rows.map((r) => r.name);
}

describe('migrations', () => {
  it('run on PGlite, and a second run applies nothing', async () => {
    // An empty, initialised PGlite (the suite's template), as on a fresh machine.
    const instance = await startTestPglite();
    const db = await openDb({ kind: 'pglite', instance });
    try {
      const first = await migrateToLatest(db);
      expect(first.results?.map((r) => r.status)).toEqual(Object.keys(migrations).map(() => 'Success'));
      const second = await migrateToLatest(db);
      expect(second.results).toEqual([]);
    } finally {
      await db.close();
      await instance.close();
    }
  });

  // CI sets DATABASE_URL to the machine's PostgreSQL 15; a newcomer's `npm test` runs the PGlite case above.
  it.runIf(databaseUrl)('run on PostgreSQL in an isolated schema per test file', async () => {
    await using a = await openTestDb();
    await using b = await openTestDb();
    expect(a.schema).not.toEqual(b.schema);
    expect(await appliedMigrations(a)).toEqual(Object.keys(migrations).sort());
    await a.kysely.insertInto('app_meta').values({ key: 'k', value: 'a' }).execute();
    const inB = await b.kysely.selectFrom('app_meta').selectAll().execute();
    expect(inB).toEqual([]);
  });

  it('ping rejects once the database is closed', async () => {
    const db = await openTestDb();
    await db.ping();
    await db.close();
    await expect(db.ping()).rejects.toThrow();
  });
});
