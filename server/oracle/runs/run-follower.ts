import { isInFlight } from '../../../contracts/run-states.js';
import type { RunStore } from '../store/runs.js';
import type { RunRow } from '../store/run-rows.js';
import { IDS_PER_ATTEMPT, runEvent, type RunEventLog, type RunEventRecord } from './event-log.js';
import { retryStore } from './store-retry.js';

/** Pause between two tries to read what a live subscription missed (the log may be away a while). */
const CATCH_UP_RETRY_MS = 250;
/** How long a follower of a run that ended elsewhere waits for its `done` before writing it from the row. */
const ENDING_WAIT_MS = 1000;

/**
 * What stops a follower: an AbortSignal, or anything with these members of one (an open stream's lighter end,
 * event-stream.ts).
 */
export interface StopSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options: { once: true }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * Following a run's events, for a stream or a re-join (`GET /runs/:runId`): what it reads the events from, and
 * how it knows a run's `done` will come to the log it subscribed to.
 */
export interface FollowDeps {
  log: RunEventLog;
  runs: RunStore;
  /** Whether this instance executes the run (its `done` comes to the log: no need to ask the database). */
  isLocal: (runId: string) => boolean;
}

/**
 * Whether `record` cannot directly follow event `last`: ids of an attempt are consecutive, and an attempt
 * begins at its first id.
 */
export function isGap(last: number, record: RunEventRecord): boolean {
  return record.id !== last + 1 && record.id % IDS_PER_ATTEMPT !== 1;
}

/**
 * Follows a run's events after `after`: the retained ones first, then live ones, each exactly once and in
 * order, until `done` or until `signal` aborts. Resolves when it stops.
 */
export async function followRun(
  deps: FollowDeps,
  runId: string,
  after: number,
  write: (record: RunEventRecord) => void,
  signal: StopSignal,
  startedHere = false,
): Promise<void> {
  let last = after;
  let replaying = true;
  let finished = false;
  const buffered: RunEventRecord[] = [];
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  let unsubscribe = (): void => undefined;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    unsubscribe();
    signal.removeEventListener('abort', finish);
    resolveDone();
  };
  const deliver = (record: RunEventRecord): void => {
    if (finished || record.id <= last) return;
    // Ids of one attempt follow each other: a live event past the next id means some were not heard (a
    // subscription that was down while Redis was); they are read from the log before it goes out.
    if (!replaying && last > 0 && isGap(last, record)) {
      buffered.push(record);
      void catchUp();
      return;
    }
    last = record.id;
    write(record);
    if (record.event === 'done') finish();
  };
  const catchUp = async (): Promise<void> => {
    replaying = true;
    const readMissed = async (): Promise<void> => {
      for (const record of await deps.log.read(runId, last)) deliver(record);
    };
    if (!finished) {
      // Tried until it reads, or until the follower stops.
      const stopped = (): boolean => finished;
      await retryStore(readMissed, { everyMs: CATCH_UP_RETRY_MS, stopped }).catch(() => undefined);
    }
    // What the log has not (lost with Redis's data) cannot be had: the rest goes out as it is.
    for (const record of buffered.splice(0).sort((a, b) => a.id - b.id)) deliver(record);
    replaying = false;
  };
  signal.addEventListener('abort', finish, { once: true });
  if (signal.aborted) return;
  unsubscribe = await deps.log.subscribe(runId, (record) => {
    if (replaying) buffered.push(record);
    else deliver(record);
  });
  if (finished) unsubscribe();
  // A run this instance has just started: what it wrote so far is in its memory (RunEventLog.readStarted).
  const logged = startedHere ? deps.log.readStarted(runId, after) : deps.log.read(runId, after);
  for (const record of await logged) deliver(record);
  replaying = false;
  for (const record of buffered.splice(0)) deliver(record);
  // A run this instance executes writes its `done` to the log we subscribed to: no need to ask the database.
  // A run that ended elsewhere records the id of its `done`: asked for what comes after it, there is
  // nothing more; otherwise its `done` is on its way (it is written just after the run ends), or it never
  // reached the log (its instance died between recording the end and writing it): after a second, the
  // follower writes the run's last events from its row.
  if (!finished && !deps.isLocal(runId)) {
    const row = await deps.runs.get(runId);
    if (!row) finish();
    else if (!isInFlight(row.status)) {
      if (after >= Number(row.last_event_id)) finish();
      else
        setTimeout(() => {
          for (const record of endingOf(row)) if (record.id > last) deliver(record);
          finish();
        }, ENDING_WAIT_MS).unref();
    }
  }
  await done;
}

/**
 * The last events of a run that ended, as its row records them: `error` (a failed run) then `done`, with the
 * ids the run gave them. What a follower sends when the log lost them with the instance that wrote them; the
 * same events as the run's own but for the `error` event's timestamp (the row's end).
 */
export function endingOf(row: RunRow): RunEventRecord[] {
  const doneId = Number(row.last_event_id);
  if (row.status === 'finished') return [runEvent(doneId, 'done', { status: 'finished' })];
  if (isInFlight(row.status)) return [];
  const status = row.status;
  const done = runEvent(doneId, 'done', { status, partialText: row.partial_text });
  if (status !== 'failed') return [done];
  const timestamp = (row.ended_at ?? row.updated_at).toISOString();
  const error = runEvent(doneId - 1, 'error', {
    error: row.error ?? 'The turn failed.',
    code: 'turn_failed',
    timestamp,
  });
  return [error, done];
}

/** Whether a run's events can still be followed: it is in flight, or its events are retained. */
export async function isFollowable(deps: Pick<FollowDeps, 'log'>, row: RunRow): Promise<boolean> {
  if (isInFlight(row.status)) return true;
  return (await deps.log.read(row.run_id, 0)).length > 0;
}
