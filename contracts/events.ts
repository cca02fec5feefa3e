import { z } from 'zod';

/**
 * Events of the agent ("oracle") service: one zod schema per event, shared by the server that emits them
 * and the SDK that reads them, so a payload that drifts is a compile error on both sides.
 *
 * Two channels carry them:
 * - the chat stream (`POST /messages/:sessionId` with `stream: true`, and the re-join `GET /runs/:runId`),
 *   server-sent events framed `id: <n>` / `event: <name>` / `data: <one-line JSON>`;
 * - the socket.io channel of a chat session (namespace `/`, room = session id), where the payload is sent
 *   as the message itself under the event's name (no `{eventName, payload}` wrapper on the wire).
 *
 * In the SDK every event is surfaced as `{eventName, payload}` ({@link AnyEvent}).
 */

/** ISO 8601 UTC date-time. */
const Timestamp = z.string().datetime();

/** Fields every per-turn event carries: the chat session and the request (turn) it belongs to. */
const TurnRef = {
  sessionId: z.string(),
  requestId: z.string(),
};

/**
 * Status of a tool or action call: running, finished with an output, failed, or `denied` (its user declined a
 * call that needed approval; `error` says why, and the tool did not run).
 */
export const CallStatus = z.enum(['isRunning', 'done', 'error', 'denied']);
export type CallStatus = z.infer<typeof CallStatus>;

/**
 * First event of every stream: names the durable run the turn executes in. `resumed` is set when the runtime
 * restarted the turn (after a crash): the client cuts its text back to `partialLength` characters and appends
 * what follows. When the events of the attempt that was cut off are gone (a restart without a shared event log),
 * `partialLength` is 0 and the answer so far follows whole, as one `message`.
 *
 * @example
 * { "runId": "run_01J…", "requestId": "4f0c…", "sessionId": "…" }
 */
export const RunEvent = z.object({
  runId: z.string(),
  requestId: z.string(),
  sessionId: z.string().optional(),
  resumed: z.boolean().optional(),
  partialLength: z.number().int().nonnegative().optional(),
});
export type RunEvent = z.infer<typeof RunEvent>;

/** A text delta of the answer. Concatenating the `content` of every `message` event gives the answer. */
export const MessageEvent = z.object({
  content: z.string(),
  timestamp: Timestamp,
});
export type MessageEvent = z.infer<typeof MessageEvent>;

/** A reasoning delta (shown apart from the answer); the last one of a turn has `isComplete: true`. */
export const ReasoningEvent = z.object({
  ...TurnRef,
  reasoning: z.string(),
  reasoningDetails: z.array(z.object({ type: z.string(), text: z.string() })).optional(),
  isComplete: z.boolean(),
});
export type ReasoningEvent = z.infer<typeof ReasoningEvent>;

/**
 * A server tool call: sent when it starts (`isRunning`, with its arguments) and when it ends (`done` with
 * `output`, or `error` with `error`). `eventId` and `toolCallId` are the same id, unique across requests.
 */
export const ToolCallEvent = z.object({
  ...TurnRef,
  toolCallId: z.string(),
  eventId: z.string(),
  toolName: z.string(),
  args: z.record(z.unknown()),
  status: CallStatus,
  /** The tool's result as text (JSON for structured results); present when `status` is `done`. */
  output: z.string().optional(),
  error: z.string().optional(),
});
export type ToolCallEvent = z.infer<typeof ToolCallEvent>;

/**
 * A server tool call that waits for its user's approval before it runs (the tool's `needsApproval`, or the
 * operator's `ORACLE_TOOLS_NEED_APPROVAL`). The run's status is `awaiting_approval` until the session's owner
 * answers `POST /sessions/:sessionId/tool-approvals/:toolCallId`, or `expiresAt` passes (then it is denied with
 * reason `timeout`). `args` are the model's, as it sent them; nothing ran yet. Sent again when another instance
 * takes the run over while it waits.
 *
 * @example
 * { "toolCallId": "call_…", "toolName": "transfer_credits", "args": { "amount": 5 }, "expiresAt": "2026-…Z", … }
 */
export const ToolApprovalRequestedEvent = z.object({
  ...TurnRef,
  toolCallId: z.string(),
  toolName: z.string(),
  args: z.record(z.unknown()),
  expiresAt: Timestamp,
});
export type ToolApprovalRequestedEvent = z.infer<typeof ToolApprovalRequestedEvent>;

/**
 * The decision on a call that waited for approval: who (`system` for a timeout or an ended turn), when, and why.
 * Approved: the `tool_call` events of the call follow; denied: one `tool_call` with status `denied`.
 */
export const ToolApprovalDecidedEvent = z.object({
  ...TurnRef,
  toolCallId: z.string(),
  approved: z.boolean(),
  decidedBy: z.string(),
  decidedAt: Timestamp,
  reason: z.string().optional(),
});
export type ToolApprovalDecidedEvent = z.infer<typeof ToolApprovalDecidedEvent>;

/** A call of an agent-UI action registered with `useAgAction`, run in the user's browser. */
export const ActionCallEvent = z.object({
  ...TurnRef,
  toolCallId: z.string(),
  toolName: z.string(),
  args: z.record(z.unknown()).optional(),
  status: CallStatus,
  output: z.string().optional(),
  error: z.string().optional(),
});
export type ActionCallEvent = z.infer<typeof ActionCallEvent>;

/** A structured UI component the agent wants displayed, rendered by the SDK's `uiComponents[componentName]`. */
export const RenderComponentEvent = z.object({
  ...TurnRef,
  eventId: z.string(),
  componentName: z.string(),
  args: z.record(z.unknown()),
  status: CallStatus.optional(),
});
export type RenderComponentEvent = z.infer<typeof RenderComponentEvent>;

/** A call of one of the request's browser tools; the SDK runs it and answers with `tool_result`. */
export const BrowserToolCallEvent = z.object({
  ...TurnRef,
  toolCallId: z.string(),
  toolName: z.string(),
  args: z.record(z.unknown()),
});
export type BrowserToolCallEvent = z.infer<typeof BrowserToolCallEvent>;

/** A failure of the turn; followed by `done` with status `failed`. Carries no stack and no secret. */
export const ErrorEvent = z.object({
  error: z.string(),
  code: z.string().optional(),
  timestamp: Timestamp,
});
export type ErrorEvent = z.infer<typeof ErrorEvent>;

/** How a turn ended. */
export const RunEndStatus = z.enum(['finished', 'aborted', 'interrupted', 'failed']);
export type RunEndStatus = z.infer<typeof RunEndStatus>;

/**
 * Last event of every stream; the server closes the stream after it. For any status but `finished`,
 * `partialText` is the answer as far as it got (kept in history).
 */
export const DoneEvent = z.object({
  status: RunEndStatus,
  partialText: z.string().optional(),
});
export type DoneEvent = z.infer<typeof DoneEvent>;

/** Sent on the socket once its handshake was accepted and it joined its session's room. */
export const ConnectedEvent = z.object({
  message: z.string(),
  sessionId: z.string(),
  timestamp: Timestamp,
});
export type ConnectedEvent = z.infer<typeof ConnectedEvent>;

/**
 * The `statusCode` a refused socket handshake carries beside its `code` (in the `connect_error`'s `data`), as an
 * HTTP answer to the same refusal would: 404 for a session or room that is not there (or not the caller's),
 * 400 for a malformed handshake, 401 otherwise. One table for the oracle and the SDK's mocked oracle.
 */
export function handshakeRefusalStatus(code: string): 400 | 401 | 404 {
  if (code === 'session_not_found' || code === 'room_not_found') return 404;
  return code === 'bad_request' ? 400 : 401;
}

/** Client → server: the result of a `browser_tool_call`. `error` set means the tool failed. */
export const ToolResultEvent = z.object({
  toolCallId: z.string().min(1).max(200),
  result: z.unknown(),
  error: z.string().max(4000).optional(),
});
export type ToolResultEvent = z.infer<typeof ToolResultEvent>;

/** Client → server: the result of an `action_call`. `error` set means the action failed. */
export const ActionCallResultEvent = z.object({
  toolCallId: z.string().min(1).max(200),
  sessionId: z.string().optional(),
  result: z.unknown(),
  error: z.string().max(4000).optional(),
});
export type ActionCallResultEvent = z.infer<typeof ActionCallResultEvent>;

/** Schema of every server → client event, by wire name. */
export const SERVER_EVENTS = {
  run: RunEvent,
  message: MessageEvent,
  reasoning: ReasoningEvent,
  tool_call: ToolCallEvent,
  action_call: ActionCallEvent,
  render_component: RenderComponentEvent,
  browser_tool_call: BrowserToolCallEvent,
  tool_approval_requested: ToolApprovalRequestedEvent,
  tool_approval_decided: ToolApprovalDecidedEvent,
  error: ErrorEvent,
  done: DoneEvent,
  connected: ConnectedEvent,
} as const;

/** Schema of every client → server socket event, by wire name. */
export const CLIENT_EVENTS = {
  tool_result: ToolResultEvent,
  action_call_result: ActionCallResultEvent,
} as const;

export type ServerEventName = keyof typeof SERVER_EVENTS;
export type ClientEventName = keyof typeof CLIENT_EVENTS;
export type ServerEventPayload<N extends ServerEventName> = z.infer<(typeof SERVER_EVENTS)[N]>;
export type ClientEventPayload<N extends ClientEventName> = z.infer<(typeof CLIENT_EVENTS)[N]>;

/** Event names sent on the chat stream (SSE), in the order a turn may produce them. */
export const SSE_EVENT_NAMES = [
  'run',
  'reasoning',
  'tool_call',
  'action_call',
  'render_component',
  'browser_tool_call',
  'tool_approval_requested',
  'tool_approval_decided',
  'message',
  'error',
  'done',
] as const satisfies readonly ServerEventName[];
export type SseEventName = (typeof SSE_EVENT_NAMES)[number];

/** Event names the server emits on the socket, to the session's room. */
export const SOCKET_SERVER_EVENT_NAMES = [
  'connected',
  'tool_call',
  'render_component',
  'browser_tool_call',
  'action_call',
  'tool_approval_requested',
  'tool_approval_decided',
] as const satisfies readonly ServerEventName[];
export type SocketServerEventName = (typeof SOCKET_SERVER_EVENT_NAMES)[number];

/**
 * Any server event as the SDK surfaces it: the wire name and its payload.
 *
 * @example
 * function onEvent(event: AnyEvent) {
 *   if (event.eventName === 'render_component') console.log(event.payload.componentName);
 * }
 */
export type AnyEvent = {
  [N in ServerEventName]: { eventName: N; payload: ServerEventPayload<N> };
}[ServerEventName];

/** The zod schema of {@link AnyEvent}, for validating events read from the wire. */
export const AnyEventSchema = z.discriminatedUnion('eventName', [
  z.object({ eventName: z.literal('run'), payload: RunEvent }),
  z.object({ eventName: z.literal('message'), payload: MessageEvent }),
  z.object({ eventName: z.literal('reasoning'), payload: ReasoningEvent }),
  z.object({ eventName: z.literal('tool_call'), payload: ToolCallEvent }),
  z.object({ eventName: z.literal('action_call'), payload: ActionCallEvent }),
  z.object({ eventName: z.literal('render_component'), payload: RenderComponentEvent }),
  z.object({ eventName: z.literal('browser_tool_call'), payload: BrowserToolCallEvent }),
  z.object({ eventName: z.literal('tool_approval_requested'), payload: ToolApprovalRequestedEvent }),
  z.object({ eventName: z.literal('tool_approval_decided'), payload: ToolApprovalDecidedEvent }),
  z.object({ eventName: z.literal('error'), payload: ErrorEvent }),
  z.object({ eventName: z.literal('done'), payload: DoneEvent }),
  z.object({ eventName: z.literal('connected'), payload: ConnectedEvent }),
]);
