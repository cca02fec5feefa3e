// What an instance does with a run another one left, and what it saves of the runs it executes, in process
// (so that mutation testing sees it; the crash tests run the server as a child process): a claimed run that had
// started a tool is not run again but ended `interrupted` with its answer so far; a run in flight is
// checkpointed about every second, its text matching the events up to the saved id.
import { describe, expect, it } from 'vitest';
import { longText } from '../../../server/oracle/models/scripted-rules.js';
import { RunStore } from '../../../server/oracle/store/runs.js';
import { openTestDb } from '../../helpers/db.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { newOracleKey, startOracleApp } from '../../helpers/oracle/oracle-app.js';
import { insertOrphanRun } from '../../helpers/oracle/orphan-run.js';
import { answerText } from '../../helpers/oracle/sse.js';

const FULL = longText(400);

describe('recovery of a run whose instance died', () => {
  it('a run that had started a tool is ended interrupted with its answer so far, never run again', async () => {
    await using db = await openTestDb();
    const signingKey = await newOracleKey();
    const env = { ORACLE_RUN_LEASE_SECONDS: '1', SCRIPTED_MODEL_DELAY_MS: '1' };
    const a = await startOracleApp({ db, signingKey, env });
    const user = await newUser(a.oracleDid);
    const session = await oracleApi(a.url, user).createSession();
    await a.close();
    const partial = FULL.slice(0, 70);
    await insertOrphanRun(db, {
      runId: 'run_tools',
      requestId: 'req-tools',
      sessionId: session.sessionId,
      userDid: user.did,
      question: 'write a long story',
      partialText: partial,
      lastEventId: 9,
      toolsStarted: true,
    });
    // The embedded database claims it at the next start; a shared PostgreSQL's sweep within the lease.
    await using b = await startOracleApp({ db, signingKey, env });
    const api = oracleApi(b.url, user);
    const rest = await api.rejoin('run_tools', 9);
    expect(rest.events.filter((e) => e.event === 'message')).toEqual([]);
    expect(rest.events.at(-1)).toMatchObject({
      event: 'done',
      data: { status: 'interrupted', partialText: partial },
    });
    const run = (await api.call('GET', `/sessions/${session.sessionId}/run`)).body.run;
    expect(run).toMatchObject({ runId: 'run_tools', status: 'interrupted', partialText: partial });
    const history = (await api.call('GET', `/messages/${session.sessionId}`)).body.messages;
    expect(history.at(-1)).toMatchObject({ id: 'req-tools', content: partial, runStatus: 'interrupted' });
  });
});

describe('checkpoints of a run in flight', () => {
  it('about every second the text so far is saved, matching the events up to the saved id', async () => {
    await using db = await openTestDb();
    await using app = await startOracleApp({ db, env: { SCRIPTED_MODEL_DELAY_MS: '20' } });
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    const runs = new RunStore(db);
    let saved: { runId: string; text: string; lastId: number } | undefined;
    const first = await api.stream(session.sessionId, { message: 'write a long story' }, (_e, all) => {
      if (all.length === 1) {
        const runId = (all[0]?.data as { runId: string }).runId;
        // Read the row while the answer streams (the model writes a word every 20 ms).
        void (async () => {
          await new Promise((r) => setTimeout(r, 1_600));
          const row = await runs.get(runId);
          saved = { runId, text: row?.partial_text ?? '', lastId: Number(row?.last_event_id) };
        })();
      }
      return saved !== undefined;
    });
    expect(saved?.text.length).toBeGreaterThan(0);
    expect(FULL.startsWith(saved?.text ?? 'x')).toBe(true);
    expect(saved?.lastId).toBeGreaterThan(1);
    const upToSaved = first.events.filter((e) => (e.id as number) <= (saved?.lastId ?? 0));
    expect(answerText(upToSaved)).toBe(saved?.text);
    await api.call('POST', '/messages/abort', { sessionId: session.sessionId });
  });
});
