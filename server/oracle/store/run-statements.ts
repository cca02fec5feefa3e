import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { messageRow } from './messages.js';
import {
  endingColumns,
  STORED_IN_FLIGHT,
  type RunEnding,
  type RunStamps,
  type ThreadJson,
} from './run-rows.js';

// The statements of a turn's start and end, written for preparing (server/db/prepared-query.ts): each takes its
// values whole, as parameters, and derives nothing from them.

/** The message columns PostgreSQL gets as JSON text (`messageRow` serializes them). */
const JSON_COLUMNS: ReadonlySet<string> = new Set(['tool_calls', 'attachment']);

/** The values of a turn's start: the question's row, the session's title, the run's columns, the thread's length. */
export type StartValues = ReturnType<typeof messageRow> & {
  title: string;
  now: Date;
  runId: string;
  userDid: string;
  requestId: string;
  owner: string;
  leaseExpiresAt: Date;
  /** The run's request as JSON text. */
  request: string;
  /** How many of the newest messages the statement reads (with the thread only). */
  threadWindow: number;
};

export type StartRow = Pick<RunStamps, 'created_at' | 'updated_at' | 'lease_expires_at'> & {
  thread?: ThreadJson;
};

/**
 * A turn's start in one statement: stores the user's message, marks the session active (its title from the
 * first message), records the run and answers its stamps; `withThread`, also the session's newest messages
 * before the question.
 */
export function startStatement(db: Kysely<Database>, withThread: boolean) {
  return (v: StartValues) =>
    db
      .with('question', (db) =>
        db
          .insertInto('oracle_messages')
          .values(messageColumns(v))
          .onConflict((oc) => oc.columns(['session_id', 'id']).doNothing())
          .returning('seq'),
      )
      .with('session', (db) =>
        db
          .updateTable('oracle_sessions')
          .set((eb) => ({ last_updated_at: v.now, title: eb.fn.coalesce('title', eb.val(v.title)) }))
          .where('session_id', '=', v.session_id)
          .returning('session_id'),
      )
      .with('run', (db) =>
        db
          .insertInto('oracle_runs')
          .values({
            run_id: v.runId,
            session_id: v.session_id,
            user_did: v.userDid,
            request_id: v.requestId,
            status: 'running',
            owner: v.owner,
            lease_expires_at: v.leaseExpiresAt,
            request: v.request,
          })
          // Tried again after an outage, this statement may find its own earlier try stored (the answer was
          // lost, not the write): the run is this instance's still, its lease taken afresh. Taken over meanwhile
          // (another owner), nothing is answered and the try fails as before.
          .onConflict((oc) =>
            oc
              .column('run_id')
              .doUpdateSet({ lease_expires_at: v.leaseExpiresAt, updated_at: v.now })
              .where('oracle_runs.owner', '=', v.owner)
              .where('oracle_runs.status', '=', 'running'),
          )
          .returning(['created_at', 'updated_at', 'lease_expires_at']),
      )
      .selectFrom('run')
      .select(['run.created_at', 'run.updated_at', 'run.lease_expires_at'])
      .$if(withThread, (qb) => qb.select(threadColumn(db, v.session_id, v.threadWindow).as('thread')));
}

/**
 * A session's newest `window` messages, oldest first, as one JSON array (one value to parse, not a row per
 * message): a column of a turn's statements (the thread its prompt is built from).
 */
export function threadColumn(db: Kysely<Database>, sessionId: string, window: number) {
  return sql<ThreadJson>`(select coalesce(json_agg(m order by m.seq), '[]') from (${db
    .selectFrom('oracle_messages')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('seq', 'desc')
    .limit(window)}) m)`;
}

/** The values of a run's end with its answer: the answer's row and the run's ending, storable. */
export type EndValues = ReturnType<typeof messageRow> & {
  runId: string;
  status: RunEnding['status'];
  partialText: string;
  lastEventId: number;
  error: string | null;
  now: Date;
};

/** The answer's row of a statement's values (the message columns, in messageRow's order). */
function messageColumns(v: ReturnType<typeof messageRow>): ReturnType<typeof messageRow> {
  const { id, session_id, type, content, tool_calls, reasoning, run_status, attachment } = v;
  return { id, session_id, type, content, tool_calls, reasoning, run_status, attachment };
}

/**
 * A run's end with its answer in one statement: the run ends unless it has ended already, and only then is the
 * answer stored and the session marked active. Answers the run's id when it ended here.
 */
export function endStatement(db: Kysely<Database>) {
  return (v: EndValues) => {
    const row = messageColumns(v);
    const columns = Object.keys(row) as (keyof typeof row)[];
    return db
      .with('ended', (db) =>
        db
          .updateTable('oracle_runs')
          .set(endingColumns(v, v.now))
          .where('run_id', '=', v.runId)
          .where('status', 'in', STORED_IN_FLIGHT)
          .returning('run_id'),
      )
      .with('answer', (db) =>
        db
          .insertInto('oracle_messages')
          .columns(columns)
          // The answer's row as a select from `ended` (none when the run was not ended here). Parameters in a
          // select list are text to PostgreSQL: the json columns are cast.
          .expression(
            db
              .selectFrom('ended')
              .select(
                columns.map((column) =>
                  (JSON_COLUMNS.has(column) ? sql`${row[column]}::jsonb` : sql`${row[column]}`).as(column),
                ),
              ),
          )
          .onConflict((oc) => oc.columns(['session_id', 'id']).doNothing())
          .returning('seq'),
      )
      .with('session', (db) =>
        db
          .updateTable('oracle_sessions')
          .set({ last_updated_at: v.now })
          .where('session_id', '=', v.session_id)
          .where((eb) => eb.exists(eb.selectFrom('ended').select('run_id')))
          .returning('session_id'),
      )
      .selectFrom('ended')
      .select('run_id');
  };
}

/** The values of one run's checkpoint: how far it got, storable. */
export type CheckpointValues = {
  runId: string;
  owner: string;
  partialText: string;
  lastEventId: number;
  toolsStarted: boolean;
  now: Date;
};

/**
 * Saves how far one run got, while this instance owns it. A started tool stays started (a checkpoint never
 * unsets it).
 */
export function checkpointStatement(db: Kysely<Database>) {
  return (v: CheckpointValues) =>
    db
      .updateTable('oracle_runs')
      .set({
        partial_text: v.partialText,
        last_event_id: v.lastEventId,
        tools_started: sql<boolean>`tools_started or ${v.toolsStarted}`,
        updated_at: v.now,
      })
      .where('run_id', '=', v.runId)
      .where('owner', '=', v.owner);
}
