import type { ServerEventName, ServerEventPayload } from '../../../contracts/events.js';
import type { AgActionSpec, BrowserToolSpec, MessageDto, StoredToolCall } from '../../../contracts/oracle.js';
import type { RunRow } from '../store/run-rows.js';
import type { ApprovalRow } from '../store/approvals.js';
import type { SessionRef } from '../store/sessions.js';

// What a run hands the runtime's turn executor and gets back: the runs layer (and the HTTP routes above it)
// depend on these types only, never on the runtime that implements them.

/** What a turn was asked, as stored with its run (no token ever: it is replayed to resume the run). */
export interface TurnRequest {
  message: string;
  model?: string | undefined;
  tools?: BrowserToolSpec[] | undefined;
  agActions?: AgActionSpec[] | undefined;
  metadata?: Record<string, unknown> | undefined;
  timezone?: string | undefined;
}

/** How a turn ended and what it produced (folded into one AI message). */
export interface TurnOutcome {
  status: 'finished' | 'aborted' | 'failed';
  text: string;
  reasoning: string;
  toolCalls: StoredToolCall[];
  /** A failure's message, safe to show (no stack, no secret). */
  error?: string | undefined;
}

/** Executes the turn of a run; provided by the runtime (prompt, model, tools). */
export type RunExecutor = (run: {
  row: RunRow;
  /** The run's session, when the request that started it had it at hand (else the executor reads it). */
  session: SessionRef | undefined;
  /**
   * The session's thread ending with this turn's question: read with the session (resolved at once), or by the
   * statement that records the run (the turn's other first reads go on meanwhile). Absent, or resolving to
   * undefined, the executor reads the thread itself; rejecting (the run could not be recorded), the turn fails.
   */
  history?: Promise<MessageDto[] | undefined> | undefined;
  request: TurnRequest;
  continueFrom: string | undefined;
  /** Taking the run over at a call that waits (or waited) for its user's approval: the turn resumes there. */
  resumeAt?: ApprovalRow | undefined;
  emit: <N extends ServerEventName>(event: N, data: ServerEventPayload<N>) => void;
  signal: AbortSignal;
}) => Promise<TurnOutcome>;

/** The abort reason of a turn whose instance shuts down: its run is let go (resumed elsewhere), not ended. */
export const SHUTDOWN_ABORT = 'instance-shutting-down';
