import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedQuery, type PreparedQuery } from '../../server/db/prepared-query.js';
import { PreferencesStore } from '../../server/oracle/plugins/user-preferences/store.js';
import { RunStore } from '../../server/oracle/store/runs.js';
import { SessionStore } from '../../server/oracle/store/sessions.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

// Hot statements written with kysely run prepared (server/db/prepared-query.ts): built and compiled once with
// placeholders, then run with their values put in place. What is checked: a prepared statement sends what
// kysely would have compiled from the same values (for each of the service's), its values are not frozen
// at the first run, and a constant that would be frozen is refused. On PGlite here, and on PostgreSQL (named
// prepared statements) when DATABASE_URL is set.

let db: TestDb;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(() => db.close());

/** The parameters a prepared statement sends for `values`, in order. */
function preparedParameters<V extends Record<string, unknown>>(
  statement: PreparedQuery<V, unknown>,
  values: V,
): unknown[] {
  return statement.form().slots.map((slot) => ('key' in slot ? values[slot.key] : slot.constant));
}

describe('a prepared statement', () => {
  it('runs with the values of each run, not those of its first', async () => {
    const echo = preparedQuery(db, 'test-echo', (v: { n: number; word: string }) =>
      db.kysely.selectNoFrom((eb) => [
        sql<number>`${v.n}::int + 1`.as('next'),
        eb.fn.coalesce(sql<string>`${v.word}::text`, eb.val('none')).as('word'),
      ]),
    );
    expect(await echo({ n: 1, word: 'one' })).toEqual([{ next: 2, word: 'one' }]);
    expect(await echo({ n: 41, word: 'two' })).toEqual([{ next: 42, word: 'two' }]);
    // The constant of the statement ('none') is a parameter of its own, the same every run.
    expect(echo.form().slots).toEqual([{ key: 'n' }, { key: 'word' }, { constant: 'none' }]);
  });

  it('refuses a constant that would be frozen at its first run (a Date written in the statement)', () => {
    const stamped = preparedQuery(db, 'test-frozen', (v: { n: number }) =>
      db.kysely.selectNoFrom(() => [sql<number>`${v.n}`.as('n'), sql<Date>`${new Date()}`.as('at')]),
    );
    expect(() => stamped.form()).toThrow(
      'prepared statement test-frozen: parameter $2 is a constant [object Date]; pass it as a value',
    );
  });
});

describe("the service's prepared statements send what kysely compiles from the same values", () => {
  const question = (n: number) => ({
    id: `q${n}`,
    session_id: `s${n}`,
    type: 'human' as const,
    content: `question ${n}`,
    tool_calls: n % 2 ? null : '[{"id":"t"}]',
    reasoning: n % 2 ? null : 'because',
    run_status: n % 2 ? null : 'finished',
    attachment: n % 2 ? null : '{"kind":"file"}',
  });
  const start = (n: number) => ({
    ...question(n),
    title: `title ${n}`,
    now: new Date(1_800_000_000_000 + n),
    runId: `run_${n}`,
    userDid: `did:key:u${n}`,
    requestId: `r${n}`,
    owner: `o${n}`,
    leaseExpiresAt: new Date(1_800_000_030_000 + n),
    request: `{"message":"question ${n}"}`,
    threadWindow: 20 + n,
  });
  const end = (n: number) => ({
    ...question(n),
    type: 'ai' as const,
    runId: `run_${n}`,
    status: n % 2 ? ('finished' as const) : ('failed' as const),
    partialText: `answer ${n}`,
    lastEventId: 39 + n,
    error: n % 2 ? null : 'The turn failed.',
    now: new Date(1_800_000_000_000 + n),
  });
  const runs = (): RunStore => new RunStore(db);

  it.each([
    ['a turn’s start', () => runs().start, start],
    ['a turn’s start with its thread', () => runs().startWithThread, start],
    ['a run’s end with its answer', () => runs().endAnswering, end],
    [
      'a turn’s read of its session, its runs in flight and its thread',
      () => new SessionStore(db, 'did:key:oracle').forTurn,
      (n: number) => ({
        sessionId: `s${n}`,
        userDid: `did:key:u${n}`,
        oracleDid: `did:key:o${n}`,
        threadWindow: 50 + n,
      }),
    ],
    [
      'a run’s checkpoint',
      () => runs().checkpointOne,
      (n: number) => ({
        runId: `run_${n}`,
        owner: `o${n}`,
        partialText: `words ${n}`,
        lastEventId: 10 + n,
        toolsStarted: n % 2 === 0,
        now: new Date(1_800_000_000_000 + n),
      }),
    ],
    [
      'a turn’s read of its room’s preferences',
      () => new PreferencesStore(db, 'did:key:oracle').readRoom,
      (n: number) => ({ oracleDid: `did:key:o${n}`, room: `pair:did:key:u${n}` }),
    ],
  ] as const)('%s', (_, statement, values) => {
    const prepared = statement() as PreparedQuery<Record<string, unknown>, unknown>;
    for (const n of [1, 2]) {
      const compiled = prepared.compiled(values(n));
      expect(prepared.form().sql).toBe(compiled.sql);
      expect(preparedParameters(prepared, values(n))).toEqual(compiled.parameters);
    }
  });
});
