import { sql, type Kysely, type Selectable } from 'kysely';
import { toStorableJson, toStorableText } from '../../../contracts/unsafe-text.js';
import type { MessageDto, PendingApproval, StoredToolCall } from '../../../contracts/oracle.js';
import type { Database, OracleToolApprovalsTable } from '../../db/schema.js';

export type ApprovalRow = Selectable<OracleToolApprovalsTable>;

/** What a new approval request records: the call, who may decide it, until when, and the turn to resume. */
export interface NewApproval {
  toolCallId: string;
  runId: string;
  sessionId: string;
  userDid: string;
  toolName: string;
  args: Record<string, unknown>;
  expiresAt: Date;
  /** The turn's state at the call (its messages, the answer so far, the calls left): what a takeover resumes. */
  resume: Record<string, unknown>;
}

/** A decision: the session owner's, or the run's own when the approval timed out or the turn ended. */
export interface ApprovalDecision {
  approved: boolean;
  /** The deciding user's DID; `system` for a timeout or an ended turn. */
  decidedBy: string;
  reason?: string | undefined;
}

/** How {@link ApprovalStore.decide} went. */
export type DecideResult =
  | { kind: 'decided'; row: ApprovalRow }
  | { kind: 'already_decided'; row: ApprovalRow }
  | { kind: 'not_found' };

/** Tool calls that wait for their user's yes or no (table `oracle_tool_approvals`, migration 0009). */
export class ApprovalStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Records a pending approval (before anyone is told of it). */
  async request(approval: NewApproval): Promise<ApprovalRow> {
    return this.#db
      .insertInto('oracle_tool_approvals')
      .values({
        tool_call_id: approval.toolCallId,
        run_id: approval.runId,
        session_id: approval.sessionId,
        user_did: approval.userDid,
        tool_name: approval.toolName,
        args: JSON.stringify(toStorableJson(approval.args)),
        expires_at: approval.expiresAt,
        resume: JSON.stringify(toStorableJson(approval.resume)),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async get(toolCallId: string): Promise<ApprovalRow | undefined> {
    return this.#db
      .selectFrom('oracle_tool_approvals')
      .selectAll()
      .where('tool_call_id', '=', toolCallId)
      .executeTakeFirst();
  }

  /** The run's approvals, oldest first (a pending one is the call the turn waits on). */
  async ofRun(runId: string): Promise<ApprovalRow[]> {
    return this.#db
      .selectFrom('oracle_tool_approvals')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('requested_at')
      .orderBy('tool_call_id')
      .execute();
  }

  /** The pending approvals of several runs (for the runs' summaries), by run id. */
  async pendingOf(runIds: readonly string[]): Promise<ApprovalRow[]> {
    if (runIds.length === 0) return [];
    return this.#db
      .selectFrom('oracle_tool_approvals')
      .selectAll()
      .where('run_id', 'in', runIds)
      .where('status', '=', 'pending')
      .orderBy('requested_at')
      .execute();
  }

  /**
   * Decides a pending approval in one conditional statement, so of two racing decisions (on any instances)
   * exactly one wins. `owner` limits it to the session owner's calls (`undefined` for the run's own timeout
   * decision): anyone else's answer is `not_found`, as for a call that does not exist.
   */
  async decide(
    sessionId: string,
    toolCallId: string,
    owner: string | undefined,
    decision: ApprovalDecision,
  ): Promise<DecideResult> {
    let update = this.#db
      .updateTable('oracle_tool_approvals')
      .set({
        status: decision.approved ? 'approved' : 'denied',
        decided_by: decision.decidedBy,
        decided_at: sql<Date>`now()`,
        reason: decision.reason === undefined ? null : toStorableText(decision.reason),
      })
      .where('tool_call_id', '=', toolCallId)
      .where('session_id', '=', sessionId)
      .where('status', '=', 'pending');
    if (owner !== undefined) update = update.where('user_did', '=', owner);
    const row = await update.returningAll().executeTakeFirst();
    if (row) return { kind: 'decided', row };
    const existing = await this.get(toolCallId);
    if (!existing || existing.session_id !== sessionId) return { kind: 'not_found' };
    if (owner !== undefined && existing.user_did !== owner) return { kind: 'not_found' };
    return { kind: 'already_decided', row: existing };
  }
}

/** A pending approval as `GET /sessions/:id/run` shows it. */
export function toPendingApproval(row: ApprovalRow): PendingApproval {
  return {
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    args: row.args,
    expiresAt: row.expires_at.toISOString(),
  };
}

/** What history reads of the turn's state saved with an approval (runtime/approval-gate.ts `ApprovalResume`). */
interface SavedAnswer {
  text?: string;
  reasoning?: string;
  toolCalls?: StoredToolCall[];
}

/**
 * The answer of a run that waits for its user's approval, as history shows it until the turn ends: under the
 * turn's request id (the stored answer's id), the text and calls so far (from the state saved with the newest
 * pending call), then each waiting call with status `awaiting_approval` and its args as the model sent them.
 * Without `isComplete`: it is not stored yet.
 */
export function toWaitingAnswer(requestId: string, pending: readonly ApprovalRow[]): MessageDto {
  const saved = (pending.at(-1)?.resume ?? {}) as SavedAnswer;
  const waiting = pending.map((row): StoredToolCall => ({
    id: row.tool_call_id,
    name: row.tool_name,
    kind: 'tool',
    args: row.args,
    status: 'awaiting_approval',
    expiresAt: row.expires_at.toISOString(),
  }));
  const ids = new Set(waiting.map((c) => c.id));
  const toolCalls = [...(saved.toolCalls ?? []).filter((c) => !ids.has(c.id)), ...waiting];
  return {
    id: requestId,
    type: 'ai',
    content: saved.text ?? '',
    ...(saved.reasoning ? { reasoning: saved.reasoning } : {}),
    toolCalls,
  };
}
