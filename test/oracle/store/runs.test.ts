import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MessageStore } from '../../../server/oracle/store/messages.js';
import { RunStore } from '../../../server/oracle/store/runs.js';
import { SessionStore } from '../../../server/oracle/store/sessions.js';
import type { Database } from '../../../server/db/schema.js';
import { openTestDb, TEST_DATABASE_URL } from '../../helpers/db.js';

/** Records a run and its question as a turn's start does (user `did:key:user`, owner `me` unless said). */
function startRun(
  runs: RunStore,
  run: {
    runId: string;
    sessionId: string;
    requestId?: string;
    questionId?: string;
    owner?: string;
    content?: string;
    request?: Record<string, unknown>;
    attachment?: Record<string, unknown>;
    threadWindow?: number;
  },
) {
  const content = run.content ?? 'hi';
  return runs.createWithQuestion(
    {
      runId: run.runId,
      sessionId: run.sessionId,
      userDid: 'did:key:user',
      requestId: run.requestId ?? randomUUID(),
      owner: run.owner ?? 'me',
      leaseMs: 30_000,
      request: run.request ?? { message: content },
    },
    {
      id: run.questionId ?? randomUUID(),
      sessionId: run.sessionId,
      type: 'human',
      content,
      attachment: run.attachment,
    },
    content,
    run.threadWindow,
  );
}

/** Another writer: a transaction that holds the run's row locked until `release()` (which waits for its end). */
async function holdRow(db: Kysely<Database>, runId: string): Promise<{ release: () => Promise<void> }> {
  let releaseRow!: () => void;
  const held = new Promise<void>((resolve) => (releaseRow = resolve));
  let rowLocked!: () => void;
  const locked = new Promise<void>((resolve) => (rowLocked = resolve));
  const writer = db.transaction().execute(async (trx) => {
    await trx.selectFrom('oracle_runs').select('run_id').where('run_id', '=', runId).forUpdate().execute();
    rowLocked();
    await held;
  });
  await locked;
  return {
    release: async () => {
      releaseRow();
      await writer;
    },
  };
}

describe('RunStore', () => {
  it('checkpoints many runs in one call: each its own text, last id and tools flag, only the owner’s', async () => {
    await using db = await openTestDb();
    const session = await new SessionStore(db, 'did:key:oracle').create('did:key:user', {});
    const runs = new RunStore(db);
    const start = async (owner: string): Promise<string> => {
      const runId = `run_${randomUUID()}`;
      await startRun(runs, { runId, sessionId: session.session_id, owner });
      return runId;
    };
    const [a, b, other] = [await start('me'), await start('me'), await start('someone else')];
    await runs.checkpointMany('me', [
      { runId: a, partialText: 'It’s "quoted", \\ and $1', lastEventId: 1_000_007, toolsStarted: true },
      { runId: b, partialText: 'second', lastEventId: 3, toolsStarted: false },
      { runId: other, partialText: 'not mine', lastEventId: 9, toolsStarted: true },
    ]);
    expect(await runs.get(a)).toMatchObject({
      partial_text: 'It’s "quoted", \\ and $1',
      last_event_id: 1_000_007,
      tools_started: true,
    });
    expect(await runs.get(b)).toMatchObject({
      partial_text: 'second',
      last_event_id: 3,
      tools_started: false,
    });
    expect(await runs.get(other)).toMatchObject({ partial_text: '', last_event_id: 0, tools_started: false });
    // A tool once started stays started.
    await runs.checkpointMany('me', [{ runId: a, partialText: 'more', lastEventId: 8, toolsStarted: false }]);
    expect(await runs.get(a)).toMatchObject({ partial_text: 'more', tools_started: true });
  });

  it('starting a run again after a lost answer (its first try was stored) answers that run, not a duplicate key; taken over, it refuses', async () => {
    await using db = await openTestDb();
    const session = await new SessionStore(db, 'did:key:oracle').create('did:key:user', {});
    const runs = new RunStore(db);
    const run = {
      runId: `run_${randomUUID()}`,
      sessionId: session.session_id,
      userDid: 'did:key:user',
      requestId: randomUUID(),
      owner: 'me',
      leaseMs: 30_000,
      request: { message: 'hi' },
    };
    const question = {
      id: randomUUID(),
      sessionId: session.session_id,
      type: 'human' as const,
      content: 'hi',
    };
    const first = await runs.createWithQuestion(run, question, 'hi');
    const again = await runs.createWithQuestion(run, question, 'hi');
    expect(again.created_at).toEqual(first.created_at);
    expect(await runs.inFlight(session.session_id)).toMatchObject([{ run_id: run.runId, owner: 'me' }]);
    expect(await new MessageStore(db.kysely).recent(session.session_id, 10)).toHaveLength(1);
    // Another instance claimed it meanwhile: this one's try answers nothing (it must not execute the run).
    await db.kysely
      .updateTable('oracle_runs')
      .set({ owner: 'other' })
      .where('run_id', '=', run.runId)
      .execute();
    await expect(runs.createWithQuestion(run, question, 'hi')).rejects.toThrow();
  });

  it('reads the thread with the start of a run when asked: what a read after it answers, in one statement', async () => {
    await using db = await openTestDb();
    const session = await new SessionStore(db, 'did:key:oracle').create('did:key:user', {});
    const sessionId = session.session_id;
    const runs = new RunStore(db);
    const messages = new MessageStore(db.kysely);
    const start = (n: number, threadWindow?: number, attachment?: Record<string, unknown>) =>
      startRun(runs, {
        runId: `run_${n}`,
        sessionId,
        requestId: `req-${n}`,
        questionId: `q-${n}`,
        content: `q${n}`,
        attachment,
        threadWindow,
      });
    expect((await start(1, 3)).thread).toMatchObject([{ id: 'q-1', content: 'q1' }]);
    const toolCalls = [
      { id: 'c1', name: 't', kind: 'tool' as const, args: { x: [1] }, status: 'done' as const, output: 'ok' },
    ];
    await runs.endWithAnswer(
      'run_1',
      { status: 'aborted', partialText: 'a1', lastEventId: 3 },
      { id: 'req-1', sessionId, type: 'ai', content: 'a1', toolCalls, runStatus: 'aborted' },
    );
    await runs.end('run_1', { status: 'finished', partialText: '', lastEventId: 3 });
    const attachment = { name: 'a.txt', mimeType: 'text/plain', size: 3 };
    const second = await start(2, 3, attachment);
    expect(second.thread).toEqual(await messages.recent(sessionId, 3));
    expect(second.thread?.map((m) => m.id)).toEqual(['q-1', 'req-1', 'q-2']);
    expect(second.thread?.[1]).toMatchObject({ toolCalls, runStatus: 'aborted' });
    expect(second.thread?.[2]).toMatchObject({ attachment });
    // Asked for fewer: the newest; a retry whose first try was stored has its question once.
    await db.kysely
      .updateTable('oracle_runs')
      .set({ status: 'finished' })
      .where('run_id', '=', 'run_2')
      .execute();
    await start(3);
    const again = await start(3, 2);
    expect(again.thread?.map((m) => m.id)).toEqual(['q-2', 'q-3']);
    expect(again.thread).toEqual(await messages.recent(sessionId, 2));
    // Not asked: no thread.
    expect((await start(4)).thread).toBeUndefined();
  });

  it('reads a session for a turn with its runs in flight in one statement: the rows a read of them answers', async () => {
    await using db = await openTestDb();
    const sessions = new SessionStore(db, 'did:key:oracle');
    const sessionId = (await sessions.create('did:key:user', {})).session_id;
    const runs = new RunStore(db);
    expect(await sessions.ownedForTurn('did:key:user', sessionId)).toMatchObject({
      session: { session_id: sessionId, user_did: 'did:key:user', room_id: null },
      runsInFlight: [],
    });
    for (const n of [1, 2]) {
      await startRun(runs, {
        runId: `run_${n}`,
        sessionId,
        content: `q${n}`,
        request: { message: `q${n}`, metadata: { deep: [n] } },
      });
    }
    await runs.checkpoint('run_2', 'me', {
      partialText: 'so far',
      lastEventId: 1_000_004,
      toolsStarted: true,
    });
    await runs.end('run_1', { status: 'finished', partialText: 'done', lastEventId: 3 });
    const owned = await sessions.ownedForTurn('did:key:user', sessionId);
    expect(owned?.runsInFlight).toEqual(await runs.inFlight(sessionId));
    expect(owned?.runsInFlight?.map((r) => r.run_id)).toEqual(['run_2']);
    expect(owned?.runsInFlight?.[0]?.lease_expires_at).toBeInstanceOf(Date);
    // Not the caller's: as absent as a session that does not exist.
    expect(await sessions.ownedForTurn('did:key:someone-else', sessionId)).toBeUndefined();
    expect(await sessions.ownedForTurn('did:key:user', 'no-such-session')).toBeUndefined();
    // An exclusive database: the session, and no runs read (the instance executes them all).
    const exclusive = new SessionStore(db, 'did:key:oracle', { exclusive: true });
    const fromExclusive = await exclusive.ownedForTurn('did:key:user', sessionId);
    expect(fromExclusive?.session).toMatchObject({
      session_id: sessionId,
      user_did: 'did:key:user',
      room_id: null,
    });
    expect(fromExclusive).not.toHaveProperty('runsInFlight');
  });

  it('keeps the thread cache of an exclusive message store in step with the questions and answers it writes', async () => {
    await using db = await openTestDb();
    const session = await new SessionStore(db, 'did:key:oracle').create('did:key:user', {});
    const messages = new MessageStore(db.kysely, { exclusive: true });
    const runs = new RunStore(db, messages);
    const sessionId = session.session_id;
    expect(await messages.recent(sessionId, 51)).toEqual([]);
    const runId = `run_${randomUUID()}`;
    const run = {
      runId,
      sessionId,
      userDid: 'did:key:user',
      requestId: 'req-1',
      owner: 'me',
      leaseMs: 30_000,
      request: { message: 'hi' },
    };
    await runs.createWithQuestion(run, { id: 'q-1', sessionId, type: 'human', content: 'hi' }, 'hi');
    const toolCalls = [
      { id: 'c1', name: 't', kind: 'tool' as const, args: { x: 1 }, status: 'done' as const, output: 'ok' },
    ];
    await runs.endWithAnswer(
      runId,
      { status: 'finished', partialText: 'hello', lastEventId: 5 },
      { id: 'req-1', sessionId, type: 'ai', content: 'hello', toolCalls, runStatus: 'finished' },
    );
    // What the cache answers is what the database holds (but the times, stamped apart).
    const cached = await messages.recent(sessionId, 51);
    const stored = await new MessageStore(db.kysely).recent(sessionId, 51);
    const withoutTimes = (list: typeof stored) => list.map(({ createdAt: _t, ...m }) => m);
    expect(withoutTimes(cached)).toEqual(withoutTimes(stored));
    expect(cached.map((m) => m.content)).toEqual(['hi', 'hello']);
    expect(await messages.recent(sessionId, 1)).toMatchObject([{ id: 'req-1', toolCalls }]);
  });

  it('ends a run once: a second ending (another instance) stores no answer and changes nothing', async () => {
    await using db = await openTestDb();
    const session = await new SessionStore(db, 'did:key:oracle').create('did:key:user', {});
    const runs = new RunStore(db);
    const sessionId = session.session_id;
    const runId = `run_${randomUUID()}`;
    await startRun(runs, { runId, sessionId, requestId: 'req-1', questionId: 'q-1' });
    const toolCalls = [
      {
        id: 'c1',
        name: 't',
        kind: 'tool' as const,
        args: { x: [1, 'two'] },
        status: 'done' as const,
        output: 'ok',
      },
    ];
    const attachment = { name: 'a.txt', mimeType: 'text/plain', size: 3 };
    expect(
      await runs.endWithAnswer(
        runId,
        { status: 'interrupted', partialText: 'so far', lastEventId: 1_000_001 },
        {
          id: 'req-1',
          sessionId,
          type: 'ai',
          content: 'so far',
          toolCalls,
          attachment,
          runStatus: 'interrupted',
        },
      ),
    ).toBe(true);
    // The first instance, back, records its own end: refused, and its answer is not stored.
    const lateEnd = (id: string, requestId: string, text: string) =>
      runs.endWithAnswer(
        id,
        { status: 'finished', partialText: text, lastEventId: 9 },
        { id: requestId, sessionId, type: 'ai', content: text, runStatus: 'finished' },
      );
    expect(await lateEnd(runId, 'req-1', 'the whole answer')).toBe(false);
    expect(await runs.get(runId)).toMatchObject({ status: 'interrupted', partial_text: 'so far' });
    const history = await new MessageStore(db.kysely).all(sessionId);
    expect(history.map((m) => [m.content, m.runStatus ?? null])).toEqual([
      ['hi', null],
      ['so far', 'interrupted'],
    ]);
    expect(history[1]).toMatchObject({ toolCalls, attachment });
    // A run ended without an answer keeps none: a late answer from its first instance is not stored either.
    const bare = `run_${randomUUID()}`;
    await startRun(runs, { runId: bare, sessionId, requestId: 'req-2', questionId: 'q-2', content: 'again' });
    expect(await runs.end(bare, { status: 'interrupted', partialText: '', lastEventId: 1_000_001 })).toBe(
      true,
    );
    expect(await lateEnd(bare, 'req-2', 'late')).toBe(false);
    expect((await new MessageStore(db.kysely).all(sessionId)).map((m) => m.id)).toEqual([
      'q-1',
      'req-1',
      'q-2',
    ]);
  });

  // After a database pause an instance's renewal and checkpoint timers ran together, each on its own connection,
  // each locking the same runs' rows in its own order: deadlocks, each holding two pooled connections for
  // PostgreSQL's deadlock_timeout, and the pool ran out (CI's fault suite: new turns refused 503). Every
  // statement that writes several runs locks them in the order of their ids.
  it.runIf(TEST_DATABASE_URL)(
    'renewals, checkpoints and letting go lock several runs in the order of their ids',
    async () => {
      await using db = await openTestDb();
      const session = await new SessionStore(db, 'did:key:oracle').create('did:key:user', {});
      const runs = new RunStore(db);
      // Stored in the reverse of their ids' order: a scan in storage order meets run_b first.
      for (const runId of ['run_b', 'run_a']) await startRun(runs, { runId, sessionId: session.session_id });
      const writes: [string, () => Promise<void>][] = [
        ['renew', () => runs.renew('me', ['run_b', 'run_a'], 30_000)],
        [
          'checkpointMany',
          () =>
            runs.checkpointMany(
              'me',
              ['run_b', 'run_a'].map((runId) => ({
                runId,
                partialText: 'x',
                lastEventId: 2,
                toolsStarted: false,
              })),
            ),
        ],
        ['release', () => runs.release('me', ['run_b', 'run_a'])],
      ];
      for (const [name, write] of writes) {
        // Another writer holds run_b; the statement must have taken run_a first and now wait for run_b.
        const writer = await holdRow(db.kysely, 'run_b');
        const pending = write();
        await new Promise((resolve) => setTimeout(resolve, 300));
        const probe = await db.kysely
          .transaction()
          .execute((trx) =>
            trx
              .selectFrom('oracle_runs')
              .select('run_id')
              .where('run_id', '=', 'run_a')
              .forUpdate()
              .noWait()
              .execute(),
          )
          .then(
            () => 'run_a free',
            (err: unknown) => (err as { code?: string }).code,
          );
        await writer.release();
        await pending;
        expect([name, probe]).toEqual([name, '55P03']);
      }
    },
  );

  // Two instances after a database pause longer than the lease: one sweeps orphans while the other still
  // writes its runs. The sweep must not wait on a row being written (it waited, or deadlocked with a batched
  // checkpoint, holding pooled connections until the statement timeout: a 503 to the next message).
  it.runIf(TEST_DATABASE_URL)(
    'claims orphans without waiting on a run whose row another writer holds',
    async () => {
      await using db = await openTestDb();
      const session = await new SessionStore(db, 'did:key:oracle').create('did:key:user', {});
      const runs = new RunStore(db);
      const orphan = async (runId: string): Promise<void> => {
        await startRun(runs, { runId, sessionId: session.session_id, owner: 'a-paused-instance' });
        await db.kysely
          .updateTable('oracle_runs')
          .set({ lease_expires_at: new Date(Date.now() - 1_000) })
          .where('run_id', '=', runId)
          .execute();
      };
      await orphan('run_held');
      await orphan('run_free');
      const writer = await holdRow(db.kysely, 'run_held');
      const waited = Symbol('waited on the held row');
      const claim = runs.claimOrphans('me', 30_000, 10);
      const first = await Promise.race([claim, new Promise((r) => setTimeout(() => r(waited), 1_500))]);
      await writer.release();
      expect(first).not.toBe(waited);
      expect((first as Awaited<typeof claim>).map((r) => r.run_id)).toEqual(['run_free']);
      // Once the writer is done, the next sweep takes the row it skipped.
      expect((await runs.claimOrphans('me', 30_000, 10)).map((r) => [r.run_id, r.owner, r.attempt])).toEqual([
        ['run_held', 'me', 2],
      ]);
    },
  );
});
