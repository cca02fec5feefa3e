import type { Db } from '../../../server/db/index.js';

/**
 * What an instance that died mid-turn leaves in the database: the question, and a run in flight whose lease
 * ran out (owner `a-dead-instance`), with the answer as far as its last checkpoint.
 */
export async function insertOrphanRun(
  db: Db,
  run: {
    runId: string;
    requestId: string;
    sessionId: string;
    userDid: string;
    question: string;
    partialText: string;
    lastEventId?: number;
    /** It had started a tool before its instance died. */
    toolsStarted?: boolean;
  },
): Promise<void> {
  await db.kysely
    .insertInto('oracle_messages')
    .values({ id: `q-${run.requestId}`, session_id: run.sessionId, type: 'human', content: run.question })
    .execute();
  await db.kysely
    .insertInto('oracle_runs')
    .values({
      run_id: run.runId,
      session_id: run.sessionId,
      user_did: run.userDid,
      request_id: run.requestId,
      status: 'running',
      owner: 'a-dead-instance',
      lease_expires_at: new Date(Date.now() - 1000),
      partial_text: run.partialText,
      last_event_id: run.lastEventId ?? 0,
      tools_started: run.toolsStarted ?? false,
      request: JSON.stringify({ message: run.question, model: 'scripted' }),
    })
    .execute();
}
