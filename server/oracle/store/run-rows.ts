import type { Kysely, Selectable } from 'kysely';
import type { MessageDto, RunInfo } from '../../../contracts/oracle.js';
import { IN_FLIGHT_STATUSES } from '../../../contracts/run-states.js';
import { toStorableJson, toStorableText } from '../../../contracts/unsafe-text.js';
import type { Database, OracleMessagesTable, OracleRunsTable } from '../../db/schema.js';
import { toDto, type NewMessage } from './messages.js';

/**
 * A run's row and its forms: as the database keeps it, as `json_agg` answers it, as the API answers it; and the
 * pieces RunStore's statements share (runs.ts is the store itself).
 */

export type RunRow = Selectable<OracleRunsTable>;

/** A run's status as its row keeps it (`awaiting_approval` is a `running` run with a pending approval). */
export type StoredRunStatus = OracleRunsTable['status'];

/** The in-flight statuses a run's row can hold (every one of {@link IN_FLIGHT_STATUSES} but `awaiting_approval`). */
export const STORED_IN_FLIGHT: readonly StoredRunStatus[] = IN_FLIGHT_STATUSES.filter(
  (status): status is Exclude<typeof status, 'awaiting_approval'> => status !== 'awaiting_approval',
);

/** What recording a run's start answers: its stamps, and the thread before its question when asked for. */
export interface RunStamps extends Pick<RunRow, 'created_at' | 'updated_at' | 'lease_expires_at'> {
  thread?: MessageDto[] | undefined;
}

type MessageRow = Selectable<OracleMessagesTable>;

/** Messages as `json_agg` answers them: times as ISO strings. */
export type ThreadJson = (Omit<MessageRow, 'created_at'> & { created_at: string })[];

export function threadFromJson(rows: ThreadJson): MessageDto[] {
  return rows.map((row) => toDto({ ...row, created_at: new Date(row.created_at) }));
}

/** Runs as `json_agg` answers them: times as ISO strings. */
export type RunRowJson = Omit<RunRow, 'lease_expires_at' | 'created_at' | 'updated_at' | 'ended_at'> & {
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
};

/** Run rows read as JSON (a subquery's `json_agg`), with their times as dates again. */
export function runRowsFromJson(rows: RunRowJson[]): RunRow[] {
  const date = (at: string | null) => (at === null ? null : new Date(at));
  return rows.map((row) => ({
    ...row,
    lease_expires_at: date(row.lease_expires_at),
    created_at: new Date(row.created_at),
    updated_at: new Date(row.updated_at),
    ended_at: date(row.ended_at),
  }));
}

/** How a run ended, as its row records it. */
export interface RunEnding {
  status: StoredRunStatus;
  partialText: string;
  /** The id of the run's `done`. */
  lastEventId: number;
  error?: string | undefined;
}

/** How far a run got: what a checkpoint saves. */
export interface RunCheckpoint {
  runId: string;
  partialText: string;
  lastEventId: number;
  toolsStarted: boolean;
}

/** A run about to start on this instance. */
export interface NewRun {
  runId: string;
  sessionId: string;
  userDid: string;
  requestId: string;
  owner: string;
  leaseMs: number;
  request: Record<string, unknown>;
}

/** The row `createWithQuestion` records for `run`, as known before the database stamps it. */
export function runningRow(run: NewRun, now: Date): RunRow {
  return {
    run_id: run.runId,
    session_id: run.sessionId,
    user_did: run.userDid,
    request_id: run.requestId,
    status: 'running',
    attempt: 1,
    owner: run.owner,
    lease_expires_at: new Date(now.getTime() + run.leaseMs),
    partial_text: '',
    last_event_id: 0,
    tools_started: false,
    request: run.request,
    error: null,
    created_at: now,
    updated_at: now,
    ended_at: null,
  };
}

/** The wire form of a run (contracts/oracle.ts RunInfo). */
export function toRunInfo(row: RunRow): RunInfo {
  return {
    runId: row.run_id,
    requestId: row.request_id,
    sessionId: row.session_id,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    lastEventId: Number(row.last_event_id),
    ...(row.status !== 'finished' && row.partial_text ? { partialText: row.partial_text } : {}),
  };
}

/**
 * Locks the rows of `owner`'s runs in flight among `runIds`, in the order of their ids. Every statement that
 * writes several runs' rows (renewals, checkpoints, letting go) takes its locks this way first: two of them
 * running at once (an instance's renewal and checkpoint timers, each on its own connection) wait for each
 * other instead of each locking rows the other wants next, a deadlock PostgreSQL breaks only after
 * `deadlock_timeout` with both connections held meanwhile (seen after a database pause, when the timers'
 * statements run together: the pool ran out and new turns were refused).
 */
export function lockInOrder(db: Kysely<Database>, owner: string, runIds: string[]) {
  return db
    .selectFrom('oracle_runs')
    .select('run_id')
    .where('owner', '=', owner)
    .where('run_id', 'in', runIds)
    .where('status', 'in', STORED_IN_FLIGHT)
    .orderBy('run_id')
    .forUpdate();
}

/** The columns a run's recorded end sets: it is no longer anyone's. */
export function endingColumns(
  ending: Omit<RunEnding, 'error'> & { error?: string | null | undefined },
  now: Date = new Date(),
) {
  return {
    status: ending.status,
    partial_text: ending.partialText,
    last_event_id: ending.lastEventId,
    error: ending.error ?? null,
    owner: null,
    lease_expires_at: null,
    updated_at: now,
    ended_at: now,
  };
}

/** A run's ending as PostgreSQL accepts it: NUL and lone surrogates as U+FFFD (lib/unsafe-text.ts). */
export function storableEnding<E extends { partialText: string; error?: string | undefined }>(ending: E): E {
  return {
    ...ending,
    partialText: toStorableText(ending.partialText),
    ...(ending.error === undefined ? {} : { error: toStorableText(ending.error) }),
  };
}

/** A message as PostgreSQL accepts it: NUL and lone surrogates in its text and tool calls as U+FFFD. */
export function storableMessage(message: NewMessage): NewMessage {
  return {
    ...message,
    content: toStorableText(message.content),
    ...(message.reasoning === undefined ? {} : { reasoning: toStorableText(message.reasoning) }),
    ...(message.toolCalls === undefined ? {} : { toolCalls: toStorableJson(message.toolCalls) }),
  };
}
