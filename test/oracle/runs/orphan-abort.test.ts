// Aborting a run nobody executes (its instance died and no sweep has claimed it yet) ends it where the abort
// arrives: `aborted`, its answer so far kept in history, and a `done` above every id of the attempt that was
// cut off, so a client that re-joins sees the end. On a shared PostgreSQL only: an embedded database resumes
// every run in flight at start, so there a run is never left unowned.
import { describe, expect, it } from 'vitest';
import { longText } from '../../../server/oracle/models/scripted-rules.js';
import { openTestDb, TEST_DATABASE_URL } from '../../helpers/db.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { insertOrphanRun } from '../../helpers/oracle/orphan-run.js';
import { newOracleKey, startOracleApp } from '../../helpers/oracle/oracle-app.js';

const PARTIAL = longText(400).slice(0, 90);

describe.runIf(TEST_DATABASE_URL)('aborting a run whose instance is gone', () => {
  it('ends it aborted here: the answer so far in history, done with it on a re-join, and the next turn runs', async () => {
    await using db = await openTestDb();
    // A long lease: the sweep (every lease / 2) does not claim the orphan during the test.
    await using app = await startOracleApp({
      db,
      signingKey: await newOracleKey(),
      env: { ORACLE_RUN_LEASE_SECONDS: '120', SCRIPTED_MODEL_DELAY_MS: '1' },
    });
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    await insertOrphanRun(db, {
      runId: 'run_orphan',
      requestId: 'req-orphan',
      sessionId: session.sessionId,
      userDid: user.did,
      question: 'write a long story',
      partialText: PARTIAL,
      lastEventId: 12,
    });

    const abort = await api.call('POST', '/messages/abort', { sessionId: session.sessionId });
    expect(abort).toMatchObject({ status: 200, body: { success: true } });
    const run = (await api.call('GET', `/sessions/${session.sessionId}/run`)).body.run;
    expect(run).toMatchObject({ runId: 'run_orphan', status: 'aborted', partialText: PARTIAL });
    const history = (await api.call('GET', `/messages/${session.sessionId}`)).body.messages;
    expect(history.at(-1)).toMatchObject({
      id: 'req-orphan',
      type: 'ai',
      content: PARTIAL,
      runStatus: 'aborted',
    });

    // A client that saw up to id 12 re-joins: the end, above every id of the attempt, with the text so far.
    const rejoined = await api.rejoin('run_orphan', 12);
    expect(rejoined.events).toEqual([
      { id: 1_000_001, event: 'done', data: { status: 'aborted', partialText: PARTIAL } },
    ]);
    // Aborting again finds nothing in flight.
    expect(await api.call('POST', '/messages/abort', { sessionId: session.sessionId })).toMatchObject({
      status: 200,
      body: { success: false },
    });
    // The session takes its next turn.
    const next = await api.call('POST', `/messages/${session.sessionId}`, { message: 'hello' });
    expect(next.status).toBe(200);
  });
});
