import { describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../../server/db/index.js';
import { createThrowawayDatabase, startTestPglite, TEST_DATABASE_URL } from '../../helpers/db.js';

// Db.prepared: the dial's account lookup runs as a named prepared statement on PostgreSQL (issue 23, USSD in
// production). The same call must give the same rows on both databases, bind new values on each call, and leave
// a connection usable after a failed statement.

const ADD_ONE = 'select $1::int + 1 as n';

async function behavesLikeAQuery(db: Db): Promise<void> {
  expect(await db.prepared<{ n: number }>('test-add-one', ADD_ONE, [41])).toEqual([{ n: 42 }]);
  // The second call reuses the statement and binds its own value.
  expect(await db.prepared<{ n: number }>('test-add-one', ADD_ONE, [1])).toEqual([{ n: 2 }]);
  const arrays = await db.prepared<{ v: string }>(
    'test-unnest',
    'select unnest($1::text[]) as v order by v',
    [['b', 'a']],
  );
  expect(arrays).toEqual([{ v: 'a' }, { v: 'b' }]);
  await expect(db.prepared('test-add-one', ADD_ONE, ['not a number'])).rejects.toMatchObject({
    code: '22P02',
  });
  expect(await db.prepared<{ n: number }>('test-add-one', ADD_ONE, [9])).toEqual([{ n: 10 }]);
}

describe('Db.prepared', () => {
  it('PGlite: runs the text with its parameters', async () => {
    // From the run's template: half a second, where a fresh in-memory PGlite runs initdb for about ten.
    const instance = await startTestPglite();
    const db = await openDb({ kind: 'pglite', instance });
    try {
      await behavesLikeAQuery(db);
    } finally {
      await db.close();
      await instance.close();
    }
  });

  it.runIf(TEST_DATABASE_URL)(
    'PostgreSQL: a named statement, prepared once per connection and run with new values after',
    async () => {
      await using database = await createThrowawayDatabase('prepared_statements');
      // One connection, so every call below meets the statements the earlier ones prepared.
      const db = await openDb({ kind: 'postgres', url: database.url ?? '', poolSize: 1 });
      try {
        await behavesLikeAQuery(db);
        const prepared = await db.prepared<{ name: string; statement: string }>(
          'test-prepared-names',
          'select name, statement from pg_prepared_statements order by name',
          [],
        );
        expect(prepared.map((p) => p.name)).toEqual(['test-add-one', 'test-prepared-names', 'test-unnest']);
        expect(prepared.find((p) => p.name === 'test-add-one')?.statement).toBe(ADD_ONE);
      } finally {
        await db.close();
      }
    },
  );
});
