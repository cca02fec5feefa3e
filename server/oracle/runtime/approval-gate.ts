import type { ControlBus, ControlMessage } from '../runs/control-bus.js';
import type { Logger } from '../../logger.js';
import type { StoredToolCall } from '../../../contracts/oracle.js';
import type { ModelMessage, ModelToolCall } from '../models/model.js';
import type { ServerTool, ToolContext } from './tools.js';
import { fence } from '../models/prompt-fence.js';
import { SHUTDOWN_ABORT } from '../runs/turn.js';
import type {
  ApprovalDecision,
  ApprovalRow,
  ApprovalStore,
  DecideResult,
  NewApproval,
} from '../store/approvals.js';

/** Who decides when nobody did: a timeout, or a turn that ended while it waited. */
const SYSTEM_DECIDER = 'system';

/** How long a check of the store waits between two looks while nothing arrives on the bus. */
const RECHECK_MS = 5_000;

export interface ApprovalGateDeps {
  store: ApprovalStore;
  bus: ControlBus;
  logger: Logger;
  /** How long an approval waits for its user (ORACLE_APPROVAL_TIMEOUT_S). */
  timeoutMs: number;
  now?: () => number;
}

/**
 * The one place a tool call waits for its user's yes or no:
 *
 * 1. `request` records the pending call (with the turn's state to resume from) before anyone is told of it;
 * 2. `wait` resolves with the decided row: on the bus's `approval_decided` for the call (from any instance), on a
 *    look at the store (a decision made while no instance held the run, or a message the bus lost), or at the
 *    expiry, when the run itself decides `denied` with reason `timeout`; an aborted turn decides `denied`
 *    with reason `aborted`. Every decision goes through the store's conditional update, so exactly one wins;
 * 3. `decide` is the user's decision (the HTTP route): the store's answer, and on a win the waiting run is woken
 *    with the decided row when it waits on this instance, else by a bus message wherever it is.
 */
export function createApprovalGate(deps: ApprovalGateDeps) {
  const now = deps.now ?? Date.now;
  /** The calls waiting here, by id: given the decided row, the call has it; without, it looks at the store. */
  const waiters = new Map<string, (decided?: ApprovalRow) => void>();
  const unsubscribe = deps.bus.subscribe((message: ControlMessage) => {
    if (message.type === 'approval_decided') waiters.get(message.toolCallId)?.();
  });

  async function settleBySystem(row: ApprovalRow, reason: 'timeout' | 'aborted'): Promise<ApprovalRow> {
    const result = await deps.store.decide(row.session_id, row.tool_call_id, undefined, {
      approved: false,
      decidedBy: SYSTEM_DECIDER,
      reason,
    });
    if (result.kind === 'not_found') return row;
    if (result.kind === 'decided') await publish(result.row);
    return result.row;
  }

  /** Wakes the waiting call: here with the row, else on the bus (wherever it waits). */
  async function publish(row: ApprovalRow): Promise<void> {
    const here = waiters.get(row.tool_call_id);
    if (here) return here(row);
    await deps.bus
      .publish({ type: 'approval_decided', toolCallId: row.tool_call_id, sessionId: row.session_id })
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not publish an approval decision'));
  }

  return {
    /** How long a call waits for its user (ORACLE_APPROVAL_TIMEOUT_S). */
    timeoutMs: deps.timeoutMs,

    /** The expiry a call asked now would get. */
    expiresAt(): Date {
      return new Date(now() + deps.timeoutMs);
    },

    request(approval: NewApproval): Promise<ApprovalRow> {
      return deps.store.request(approval);
    },

    /** The run's calls waiting for a decision. */
    pendingOf(runId: string): Promise<ApprovalRow[]> {
      return deps.store.pendingOf([runId]);
    },

    /** Waits for the call's decision (see above); resolves with the decided row. */
    wait(pending: ApprovalRow, signal: AbortSignal): Promise<ApprovalRow> {
      return new Promise<ApprovalRow>((resolve, reject) => {
        let done = false;
        let looking = false;
        const timers: { expiry?: NodeJS.Timeout; recheck?: NodeJS.Timeout } = {};
        /** Settles once: stops the timers and the listeners, then `settle`. */
        const once =
          <T>(settle: (value: T) => void) =>
          (value: T): void => {
            if (done) return;
            done = true;
            waiters.delete(pending.tool_call_id);
            clearTimeout(timers.expiry);
            clearInterval(timers.recheck);
            signal.removeEventListener('abort', onAbort);
            settle(value);
          };
        const finish = once(resolve);
        const fail = once((err: unknown) => reject(err instanceof Error ? err : new Error(String(err))));
        const look = (): void => {
          if (done || looking) return;
          looking = true;
          deps.store.get(pending.tool_call_id).then(
            (row) => {
              looking = false;
              if (row && row.status !== 'pending') finish(row);
            },
            (err: unknown) => {
              looking = false;
              deps.logger.warn({ err }, 'could not read an approval; looking again later');
            },
          );
        };
        const onAbort = (): void => {
          // An instance that shuts down leaves the approval pending: whoever takes the run over waits on.
          if (signal.reason === SHUTDOWN_ABORT) return fail(new Error('the instance is shutting down'));
          settleBySystem(pending, 'aborted').then(finish, fail);
        };
        waiters.set(pending.tool_call_id, (decided) => (decided ? finish(decided) : look()));
        signal.addEventListener('abort', onAbort, { once: true });
        if (signal.aborted) return onAbort();
        const left = pending.expires_at.getTime() - now();
        timers.expiry = setTimeout(
          () => {
            void settleBySystem(pending, 'timeout').then(finish, fail);
          },
          Math.max(0, left),
        );
        timers.recheck = setInterval(look, RECHECK_MS);
        timers.recheck.unref();
        look();
      });
    },

    /** The session owner's decision; `not_found` for anyone else, as for a call that does not exist. */
    async decide(
      sessionId: string,
      toolCallId: string,
      userDid: string,
      decision: Omit<ApprovalDecision, 'decidedBy'>,
    ): Promise<DecideResult> {
      const result = await deps.store.decide(sessionId, toolCallId, userDid, {
        ...decision,
        decidedBy: userDid,
      });
      if (result.kind === 'decided') await publish(result.row);
      return result;
    },

    close(): void {
      unsubscribe();
      waiters.clear();
    },
  };
}

export type ApprovalGate = ReturnType<typeof createApprovalGate>;

/** A turn's approvals: the gate, and which calls need one (the tool's `needsApproval`, or the operator's list). */
export function createTurnApprovals(options: {
  gate: ApprovalGate;
  /** Tool names every call of which needs approval (ORACLE_TOOLS_NEED_APPROVAL). */
  required: readonly string[];
  /** Every server tool name the enabled plugins provide: a required name outside it refuses to start. */
  known: readonly string[];
}): TurnApprovals {
  const known = new Set(options.known);
  const unknown = options.required.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `ORACLE_TOOLS_NEED_APPROVAL: no enabled plugin provides ${unknown.map((n) => `"${n}"`).join(', ')} (known: ${[...known].sort().join(', ') || 'none'})`,
    );
  }
  const required = new Set(options.required);
  return {
    gate: options.gate,
    async needs(tool, args, ctx) {
      if (required.has(tool.name)) return true;
      const rule = tool.needsApproval;
      if (rule === undefined || rule === false) return false;
      if (rule === true) return true;
      return (await rule(args, ctx)) === true;
    },
  };
}

/** The turn's state at a call that waits for approval: what another instance resumes it from. */
export interface ApprovalResume {
  step: number;
  /** The messages sent to the model so far, without the system prompt (compiled again on resume). */
  messages: ModelMessage[];
  text: string;
  reasoning: string;
  toolCalls: StoredToolCall[];
  /** The step's calls; `index` is the one waiting. */
  calls: ModelToolCall[];
  index: number;
}

/** What a turn needs to ask its user before some server tools run. */
export interface TurnApprovals {
  gate: ApprovalGate;
  /** Whether this call of `tool` waits for the user's approval (the tool's `needsApproval`, the operator's list). */
  needs(tool: ServerTool, args: Record<string, unknown>, ctx: ToolContext): Promise<boolean>;
}

/** What the model (and the tool call's record) is told of a call its user declined. */
export function deniedText(toolName: string, reason: string | null | undefined, forModel = false): string {
  // The reason is the user's own words: in the model's prompt it goes through the one fence.
  const words = reason && forModel ? fence(reason) : reason;
  const why =
    reason === 'timeout' ? 'nobody approved it in time' : words ? `reason: ${words}` : 'no reason given';
  return `The user declined to run ${toolName} (${why}). Do not call it again for this request.`;
}

/** The decision as a tool call's record keeps it. */
export function approvalRecord(row: ApprovalRow): NonNullable<StoredToolCall['approval']> {
  return {
    approved: row.status === 'approved',
    decidedBy: row.decided_by ?? 'system',
    decidedAt: (row.decided_at ?? new Date()).toISOString(),
    ...(row.reason === null ? {} : { reason: row.reason }),
  };
}
