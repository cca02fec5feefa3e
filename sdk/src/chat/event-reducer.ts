import type { AnyEvent, RunEndStatus } from '../../../contracts/events.js';
import type { PendingApproval } from '../../../contracts/oracle.js';
import type { IComponentMetadata, IMessage, PartStatus } from '../types.js';
import { appendText, hasPart, replaceText, textOf, upsertPart } from './content.js';
import type { StreamEvent } from './sse.js';

/** What a turn's stream has told so far. */
export interface TurnState {
  /** The AI message's id: the `X-Request-Id` (or the `run` event's `requestId`). */
  requestId: string | undefined;
  runId: string | undefined;
  /** The highest event id applied; events at or below it are replays and are skipped. */
  lastEventId: number;
  /** The text of the turn's `error` event, for a `failed` end. */
  errorText: string | undefined;
  /** The runtime restarted the turn (a `run` event with `resumed`). */
  resumed: boolean;
  /** How the run ended, once `done` was read. */
  ended: RunEndStatus | undefined;
  /** Tool calls that wait for the user's approval: added by `tool_approval_requested`, gone once decided. */
  pendingApprovals: readonly PendingApproval[];
}

export const newTurnState = (init: Partial<TurnState> = {}): TurnState => ({
  requestId: undefined,
  runId: undefined,
  lastEventId: 0,
  errorText: undefined,
  resumed: false,
  ended: undefined,
  pendingApprovals: NO_PENDING,
  ...init,
});

const NO_PENDING: readonly PendingApproval[] = Object.freeze([]);

/** The pending list without `toolCallId` (the same list when it was not in it). */
function withoutApproval(list: readonly PendingApproval[], toolCallId: string): readonly PendingApproval[] {
  return list.some((a) => a.toolCallId === toolCallId)
    ? list.filter((a) => a.toolCallId !== toolCallId)
    : list;
}

/** The state after one event. */
export interface Reduced {
  turn: TurnState;
  /** The turn's AI message after the event (`undefined` while the turn has no message id yet). */
  message: IMessage | undefined;
  /** Publish at once rather than at the next frame (parts, and the end of the turn). */
  urgent: boolean;
}

const blank = (id: string): IMessage => ({ id, type: 'ai', content: '' });

/**
 * The stream-to-message reducer: applies one event of a turn's stream to the turn and its AI message, and
 * returns new objects (the inputs are never changed; only the message and its parts are copied, shallowly).
 * A pure function: no network, no timers, no store.
 *
 * - `run` names the run; with `resumed` the text is cut back to `partialLength` (what follows is appended).
 * - `message` appends text; `reasoning` appends reasoning (kept apart from the answer).
 * - `tool_call`, `action_call`, `render_component`, `browser_tool_call` add a part, or update the part with
 *   the same id in place (a settled part never goes back to running); `tool_approval_requested` adds the call's
 *   part as `awaiting_approval` (its `tool_call` events follow the decision).
 * - `error` keeps its text for a `failed` end; `done` completes the message, and for any status but
 *   `finished` replaces the text with `partialText`.
 * - An event whose id is at or below the last one applied is a replay (a re-join) and changes nothing.
 */
export function reduceEvent(turn: TurnState, message: IMessage | undefined, ev: StreamEvent): Reduced {
  if (ev.id !== undefined) {
    if (ev.id <= turn.lastEventId) return { turn, message, urgent: false };
    turn = { ...turn, lastEventId: ev.id };
  }
  const { event } = ev;
  const current = (): IMessage | undefined => message ?? (turn.requestId ? blank(turn.requestId) : undefined);
  switch (event.eventName) {
    case 'run': {
      const p = event.payload;
      turn = { ...turn, runId: p.runId, requestId: turn.requestId ?? p.requestId };
      let m = current();
      if (p.resumed) {
        turn = { ...turn, resumed: true };
        if (m)
          m = { ...m, content: replaceText(m.content, textOf(m.content).slice(0, p.partialLength ?? 0)) };
      }
      return { turn, message: m, urgent: false };
    }
    case 'message': {
      const m = current();
      return {
        turn,
        message: m && { ...m, content: appendText(m.content, event.payload.content) },
        urgent: false,
      };
    }
    case 'reasoning': {
      const m = current();
      return {
        turn,
        message: m && {
          ...m,
          reasoning: (m.reasoning ?? '') + event.payload.reasoning,
          isReasoning: !event.payload.isComplete,
        },
        urgent: false,
      };
    }
    case 'tool_approval_requested': {
      const { toolCallId, toolName, args, expiresAt } = event.payload;
      if (!turn.pendingApprovals.some((a) => a.toolCallId === toolCallId)) {
        turn = {
          ...turn,
          pendingApprovals: [...turn.pendingApprovals, { toolCallId, toolName, args, expiresAt }],
        };
      }
      const m = current();
      return { turn, message: m && applyPart(m, event), urgent: true };
    }
    case 'tool_call': {
      const pending = withoutApproval(turn.pendingApprovals, event.payload.toolCallId);
      if (pending !== turn.pendingApprovals) turn = { ...turn, pendingApprovals: pending };
      const m = current();
      return { turn, message: m && applyPart(m, event), urgent: true };
    }
    case 'action_call':
    case 'render_component':
    case 'browser_tool_call': {
      const m = current();
      return { turn, message: m && applyPart(m, event), urgent: true };
    }
    // The decision's effect on the message arrives as the call's own `tool_call` events (running, or `denied`).
    case 'tool_approval_decided': {
      const pending = withoutApproval(turn.pendingApprovals, event.payload.toolCallId);
      return {
        turn: pending === turn.pendingApprovals ? turn : { ...turn, pendingApprovals: pending },
        message,
        urgent: true,
      };
    }
    case 'error':
      return { turn: { ...turn, errorText: event.payload.error }, message, urgent: false };
    case 'done': {
      const done = event.payload;
      turn = { ...turn, ended: done.status, pendingApprovals: NO_PENDING };
      const m = current();
      if (!m) return { turn, message: m, urgent: true };
      const next: IMessage = { ...m, isComplete: true, isReasoning: false };
      if (done.status !== 'finished') {
        next.runStatus = done.status;
        if (done.partialText !== undefined) next.content = replaceText(m.content, done.partialText);
      }
      return { turn, message: next, urgent: true };
    }
    case 'connected':
      return { turn, message, urgent: false };
  }
}

/** Shows a tool, action, component or browser-tool event as a part of a message (upsert by the part id). */
export function applyPart(message: IMessage, event: AnyEvent): IMessage {
  const part = partOf(event);
  if (!part) return message;
  return { ...message, content: upsertPart(message.content, part.props.id, (old) => mergePart(old, part)) };
}

/** Marks a browser-tool or action part done (or failed) with its result; the message unchanged without it. */
export function settlePart(
  message: IMessage,
  id: string,
  outcome: { result: unknown; error?: string; denied?: boolean },
  args?: Record<string, unknown>,
): IMessage {
  if (!hasPart(message.content, id)) return message;
  return {
    ...message,
    content: upsertPart(message.content, id, (old) => {
      const props = { ...(old?.props ?? { id, args: {} }) };
      if (args) props.args = args;
      if (outcome.error !== undefined) {
        props.status = outcome.denied ? 'denied' : 'error';
        props.error = outcome.error;
      } else {
        props.status = 'done';
        props.output = JSON.stringify(outcome.result ?? null);
      }
      return { name: old?.name ?? id, props };
    }),
  };
}

/** Sets a browser tool part's status (waiting for its user, or running once approved); unchanged without it. */
export function markStatus(
  message: IMessage,
  id: string,
  status: 'awaiting_approval' | 'isRunning',
): IMessage {
  if (!hasPart(message.content, id)) return message;
  return {
    ...message,
    content: upsertPart(message.content, id, (old) => ({
      name: old?.name ?? id,
      props: { ...(old?.props ?? { id, args: {} }), status },
    })),
  };
}

/** The part of a server or browser tool call, in `status`. */
function callPart(
  p: {
    toolCallId: string;
    toolName: string;
    args: Record<string, unknown>;
    requestId: string;
    sessionId: string;
  },
  status: PartStatus,
  kind: 'tool' | 'browser_tool',
): IComponentMetadata {
  const { toolCallId: id, toolName, args, requestId, sessionId } = p;
  return {
    name: toolName,
    props: { id, toolName, args, status, kind, isToolCall: true, requestId, sessionId },
  };
}

/** The message part an event shows as, or nothing for events that are not parts. */
export function partOf(event: AnyEvent): IComponentMetadata | undefined {
  switch (event.eventName) {
    case 'tool_call': {
      const p = event.payload;
      const part = callPart(p, p.status, 'tool');
      if (p.output !== undefined) part.props.output = p.output;
      if (p.error !== undefined) part.props.error = p.error;
      return part;
    }
    case 'action_call': {
      const p = event.payload;
      return {
        name: p.toolName,
        props: {
          id: p.toolCallId,
          toolName: p.toolName,
          args: p.args ?? {},
          // The service may announce an action before its arguments are complete (no `args` yet).
          argsComplete: p.args !== undefined,
          status: p.status,
          kind: 'action',
          isAgAction: true,
          ...(p.output !== undefined ? { output: p.output } : {}),
          ...(p.error !== undefined ? { error: p.error } : {}),
        },
      };
    }
    case 'render_component': {
      const p = event.payload;
      return {
        name: p.componentName,
        props: { id: p.eventId, args: p.args, status: p.status ?? 'done', kind: 'component' },
      };
    }
    case 'browser_tool_call':
      return callPart(event.payload, 'isRunning', 'browser_tool');
    case 'tool_approval_requested':
      return callPart(event.payload, 'awaiting_approval', 'tool');
    case 'run':
    case 'message':
    case 'reasoning':
    case 'error':
    case 'done':
    case 'connected':
    case 'tool_approval_decided':
      return undefined;
  }
}

/**
 * Merges a new view of a part into the old one: a settled part never goes back to running (a late or
 * replayed start event), and args/output already known are kept when the new event leaves them out.
 */
export function mergePart(old: IComponentMetadata | undefined, next: IComponentMetadata): IComponentMetadata {
  if (!old) return next;
  const settled =
    old.props.status === 'done' || old.props.status === 'error' || old.props.status === 'denied';
  const props = { ...old.props, ...next.props };
  // The service reports a browser tool's progress with tool_call events too: it stays a browser tool.
  if (old.props.kind === 'browser_tool' && next.props.kind === 'tool') props.kind = 'browser_tool';
  if (Object.keys(next.props.args).length === 0 && next.props.argsComplete !== true) {
    props.args = old.props.args;
    if (old.props.argsComplete) props.argsComplete = true;
  }
  // A browser tool waiting for its user in this tab stays so while the oracle's events say it runs.
  const waitingHere = old.props.kind === 'browser_tool' && old.props.status === 'awaiting_approval';
  if ((settled || waitingHere) && next.props.status === 'isRunning') {
    props.status = old.props.status;
    if (old.props.output !== undefined) props.output = old.props.output;
    if (old.props.error !== undefined) props.error = old.props.error;
  }
  return { name: next.name, props };
}
