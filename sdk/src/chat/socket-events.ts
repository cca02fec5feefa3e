import {
  SERVER_EVENTS,
  type ActionCallEvent,
  type AnyEvent,
  type BrowserToolCallEvent,
  type SocketServerEventName,
} from '../../../contracts/events.js';
import type { CallOutcome } from '../tools/run-call.js';

/** The socket events the chat acts on (the socket's `connected` greeting carries nothing to show). */
const ROUTED = [
  'browser_tool_call',
  'action_call',
  'tool_call',
  'render_component',
] as const satisfies readonly Exclude<SocketServerEventName, 'connected'>[];
type RoutedName = (typeof ROUTED)[number];

/** A socket event of the chat's session that the chat acts on. */
export type SocketEvent = Extract<AnyEvent, { eventName: RoutedName }>;

const isRouted = (name: string): name is RoutedName => (ROUTED as readonly string[]).includes(name);

/**
 * A socket event as the chat of `sessionId` reads it: one of the events it acts on, valid by its contract
 * schema and of this session; anything else (another session's, malformed, unknown) is undefined.
 */
export function parseSocketEvent(name: string, payload: unknown, sessionId: string): SocketEvent | undefined {
  if (!isRouted(name)) return undefined;
  const parsed = SERVER_EVENTS[name].safeParse(payload);
  if (!parsed.success || parsed.data.sessionId !== sessionId) return undefined;
  return { eventName: name, payload: parsed.data } as SocketEvent;
}

/** What routing does with a socket event: show it, run a call in the tab, settle the call's part. */
export interface SocketEventSink {
  /** Shows the event as a part of the message of its turn. */
  show: (event: SocketEvent) => void;
  /** Whether a call id has already run (or is running) in this tab. */
  hasRun: (toolCallId: string) => boolean;
  runBrowserTool: (call: BrowserToolCallEvent) => Promise<CallOutcome | undefined>;
  runAction: (call: ActionCallEvent) => Promise<CallOutcome | undefined>;
  /** Marks a call's part done or failed with its outcome (`args`: those the action ran with). */
  settle: (toolCallId: string, outcome: CallOutcome | undefined, args?: Record<string, unknown>) => void;
}

/**
 * Routes one socket event of the chat's session:
 * - `browser_tool_call`: shown and run once per `toolCallId` (the result goes back as `tool_result`), then
 *   its part settled with the outcome;
 * - `action_call`: the same while `isRunning` (answered with `action_call_result`); other statuses are the
 *   stream's to show;
 * - `tool_call`, `render_component`: shown (the stream shows them too; parts merge by id).
 */
export function routeSocketEvent(event: SocketEvent, sink: SocketEventSink): void {
  switch (event.eventName) {
    case 'browser_tool_call': {
      const call = event.payload;
      if (sink.hasRun(call.toolCallId)) return;
      sink.show(event);
      void sink.runBrowserTool(call).then((o) => sink.settle(call.toolCallId, o));
      return;
    }
    case 'action_call': {
      const call = event.payload;
      if (call.status !== 'isRunning' || sink.hasRun(call.toolCallId)) return;
      sink.show(event);
      void sink.runAction(call).then((o) => sink.settle(call.toolCallId, o, o?.args));
      return;
    }
    case 'tool_call':
    case 'render_component':
      sink.show(event);
      return;
  }
}

/**
 * The message a socket event shows in: its request's when that message is on screen, else the turn's in
 * flight (`turnRequestId`) when that one is; undefined when neither is (the stream will show it).
 */
export function socketEventTarget(
  event: SocketEvent,
  onScreen: (id: string) => boolean,
  turnRequestId: string | undefined,
): string | undefined {
  const { requestId } = event.payload;
  const target = requestId && onScreen(requestId) ? requestId : turnRequestId;
  return target && onScreen(target) ? target : undefined;
}
