import type { ServerEventName } from './events.js';
import type { RunStatus } from './oracle.js';

/**
 * Statuses of a durable run in flight: its events can be followed live, and it ends with `done`. Every other
 * {@link RunStatus} is an end (a `RunEndStatus`).
 */
export const IN_FLIGHT_STATUSES = [
  'queued',
  'running',
  'recovering',
  'awaiting_approval',
] as const satisfies readonly RunStatus[];
export type InFlightStatus = (typeof IN_FLIGHT_STATUSES)[number];

/**
 * Whether a run with this status is still in flight (see {@link IN_FLIGHT_STATUSES}).
 *
 * @example
 * if (!isInFlight(run.status)) showAnswer(run.partialText);
 */
export function isInFlight(status: RunStatus): status is InFlightStatus {
  return (IN_FLIGHT_STATUSES as readonly RunStatus[]).includes(status);
}

/**
 * Events that start a call with effects outside the answer (a server tool, a browser tool, an agent-UI action).
 * A run that wrote one is never run again from the start after its instance died: it would repeat the call.
 */
export const TOOL_CALL_EVENTS = [
  'tool_call',
  'browser_tool_call',
  'action_call',
] as const satisfies readonly ServerEventName[];
export type ToolCallEventName = (typeof TOOL_CALL_EVENTS)[number];

/** Whether an event starts or reports a call (see {@link TOOL_CALL_EVENTS}). */
export function isToolCallEvent(event: ServerEventName): event is ToolCallEventName {
  return (TOOL_CALL_EVENTS as readonly ServerEventName[]).includes(event);
}
