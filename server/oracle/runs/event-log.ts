import type { ServerEventName, ServerEventPayload } from '../../../contracts/events.js';

/** One event of a run named `N`: its id (integer, growing within the run), name and payload. */
export interface RunEventOf<N extends ServerEventName> {
  id: number;
  event: N;
  data: ServerEventPayload<N>;
}

/**
 * One event of a run, as stored and replayed: a union over the event names, so that testing `event` gives
 * `data` its payload's type.
 */
export type RunEventRecord = { [N in ServerEventName]: RunEventOf<N> }[ServerEventName];

/** The record of an event (its name and payload typed together). */
export function runEvent<N extends ServerEventName>(
  id: number,
  event: N,
  data: ServerEventPayload<N>,
): RunEventRecord {
  return { id, event, data } as RunEventOf<N> as RunEventRecord;
}

/**
 * Where a run's events live while it is re-joinable: in process (embedded default) or in Redis (every
 * instance sees them). The instance executing a run is its only writer.
 */
export interface RunEventLog {
  /**
   * Appends in call order. A log that stores at once answers `undefined`; one that writes elsewhere answers a
   * promise that settles once the event is stored (and, its writes being ordered, every earlier one too).
   */
  append(runId: string, record: RunEventRecord): Promise<void> | undefined;
  /** Every retained event with `id > after`, in order. */
  read(runId: string, after: number): Promise<RunEventRecord[]>;
  /**
   * The same, for a run this process has just started and writes: from memory when it holds every event of the
   * run (a shared log's copy has nothing more, since no other instance can have written to a run started
   * moments ago), without a round trip to the shared store; otherwise as {@link read}.
   */
  readStarted(runId: string, after: number): Promise<RunEventRecord[]>;
  /** Calls `listener` for each event appended from now on (by any instance, for the shared log). */
  subscribe(runId: string, listener: (record: RunEventRecord) => void): Promise<() => void>;
  /** Events held in this process that the shared store has not taken yet (Redis away or slow); 0 in process. */
  unstored(): number;
  /** Keeps the events for `seconds` more, then forgets them (called when the run ends). */
  retain(runId: string, seconds: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Ids of an attempt: attempt × 1,000,000 + n. A resumed run (attempt 2, 3 …) thus always continues above every
 * id a client may have seen before a crash, even when the in-process log of the crashed instance is gone.
 */
export const IDS_PER_ATTEMPT = 1_000_000;

export function firstIdOfAttempt(attempt: number): number {
  return attempt * IDS_PER_ATTEMPT + 1;
}
