import type { RunEndStatus, ServerEventName, ServerEventPayload } from '../../../contracts/events.js';
import { isInFlight, isToolCallEvent } from '../../../contracts/run-states.js';
import { toStorableText } from '../../../contracts/unsafe-text.js';
import type { MessageDto } from '../../../contracts/oracle.js';
import type { Logger } from '../../logger.js';
import type { NewMessage } from '../store/messages.js';
import type { RunStore } from '../store/runs.js';
import type { NewRun, RunRow } from '../store/run-rows.js';
import { createAbortGate, type AbortGate } from './abort-handshake.js';
import {
  firstIdOfAttempt,
  IDS_PER_ATTEMPT,
  runEvent,
  type RunEventLog,
  type RunEventRecord,
} from './event-log.js';
import { isPermanent } from './store-retry.js';
import { SHUTDOWN_ABORT, type TurnOutcome } from './turn.js';

/** Why a run is being stopped from outside. */
export type StopReason = 'aborted' | 'superseded' | 'deleted' | 'shutdown';

/** Where the runs this instance executes write: their events, their checkpoints, their warnings. */
export interface RunOutlets {
  instanceId: string;
  runs: RunStore;
  log: RunEventLog;
  logger: Logger;
}

/** How a run ended, as recorded: a finished turn whose answer the database refused ends `failed`. */
export interface RecordedEnd {
  status: RunEndStatus;
  /** The answer so far (`partialText` of `done`). */
  text: string;
  error: string | undefined;
}

/**
 * A run this instance executes: numbers and writes its events, keeps its answer so far, saves how far it got (a
 * checkpoint) so that whoever claims it after a crash resumes it from there, and records its start and its end.
 */
export class ActiveRun {
  row: RunRow;
  /** The id of the last event written (0: none yet). */
  lastId = 0;
  partialText: string;
  toolsStarted: boolean;
  /** It moved since its last checkpoint. */
  dirty = false;
  readonly controller = new AbortController();
  stopReason: StopReason | undefined = undefined;
  /** Settles once the turn has ended here (and the run's end is recorded, unless it was let go). */
  finished: Promise<void> = Promise.resolve();
  /** Holds the `done` event back (the abort answer goes out first; abort-handshake.ts). */
  gate: AbortGate | undefined = undefined;
  #nextId: number;
  /** The last write to a shared event log (its errors are logged where it is made). */
  #appends: Promise<void> = Promise.resolve();
  /** Settles once the run's start is recorded or could not be (a checkpoint before it would find no row). */
  #startRecorded: Promise<unknown> = Promise.resolve();
  /**
   * The events written while the run's start is being recorded, held until it is (or could not be): whoever
   * sees an event of the run finds the run recorded.
   */
  #held: RunEventRecord[] | undefined = undefined;
  readonly #out: RunOutlets;

  constructor(row: RunRow, partialText: string, out: RunOutlets) {
    this.row = row;
    this.partialText = partialText;
    this.toolsStarted = row.tools_started;
    this.#nextId = firstIdOfAttempt(row.attempt - 1);
    this.#out = out;
  }

  /** Writes an event of the run, with the next id of its attempt. */
  emit<N extends ServerEventName>(event: N, data: ServerEventPayload<N>): void {
    if (this.#nextId % IDS_PER_ATTEMPT === 0) throw new Error('a run attempt may not write a million events');
    const record = runEvent(this.#nextId++, event, data);
    this.lastId = record.id;
    if (record.event === 'message') this.partialText += record.data.content;
    else if (!this.toolsStarted && isToolCallEvent(record.event)) {
      this.toolsStarted = true;
      // Saved at once: a crash from here on must not re-run the tool. Not saved (a busy pool): the next
      // periodic checkpoint tries again (the run stays dirty), and the process goes on.
      void this.checkpoint().catch((err: unknown) => {
        this.dirty = true;
        this.#out.logger.warn({ err, runId: this.row.run_id }, 'runs: could not save that a tool started');
      });
    }
    this.dirty = true;
    if (this.#held) this.#held.push(record);
    else this.#append(record);
  }

  #append(record: RunEventRecord): void {
    const stored = this.#out.log.append(this.row.run_id, record);
    // Writes to a shared log are ordered: waiting for the last one waits for them all.
    // Not stored (Redis away): the log keeps it in memory, tries again, and logs the outage once.
    if (stored) this.#appends = stored.catch(() => undefined);
  }

  /** Writes the events held while the start was recorded. */
  #release = (): void => {
    const held = this.#held;
    this.#held = undefined;
    if (held) for (const record of held) this.#append(record);
  };

  /** Resolves once every event written so far is stored (never rejects). */
  written(): Promise<void> {
    return this.#appends;
  }

  /**
   * Stops the turn (the executor sees its signal abort); the first reason given is kept, but for a shutdown.
   * Resolves once the run has ended here, or, given the abort's answer (`releaseDone`), once its partial answer
   * is stored: its `done` then waits for that answer (the abort handshake, abort-handshake.ts).
   */
  stop(reason: StopReason, releaseDone?: Promise<void>): Promise<void> {
    const gate = releaseDone ? createAbortGate(releaseDone) : undefined;
    if (gate) this.gate = gate;
    // A shutdown lets the run go whatever stopped it before (the next instance resumes or ends it).
    if (reason === 'shutdown' || this.stopReason === undefined) this.stopReason = reason;
    this.controller.abort(reason === 'shutdown' ? SHUTDOWN_ABORT : reason);
    return gate ? Promise.race([gate.storedYet, this.finished]) : this.finished;
  }

  /** Saves how far this run got; not saved, it stays dirty for the next checkpoint. */
  async checkpoint(): Promise<void> {
    this.dirty = false;
    try {
      await this.#startRecorded;
      await this.#out.runs.checkpoint(this.row.run_id, this.#out.instanceId, {
        partialText: this.partialText,
        lastEventId: this.lastId,
        toolsStarted: this.toolsStarted,
      });
    } catch (err) {
      this.dirty = true;
      throw err;
    }
  }

  /**
   * Records the run and its question in one statement (the session's title, when it has none, from the question),
   * through `retry`; the row takes the database's stamps. With `threadWindow`, answers the session's thread
   * ending with the question, read by the same statement. The events the run writes meanwhile are held until
   * then (or until it could not be recorded).
   */
  async saveStart(
    created: NewRun,
    question: NewMessage,
    retry: <T>(store: () => Promise<T>) => Promise<T>,
    threadWindow?: number,
  ): Promise<MessageDto[] | undefined> {
    const title = question.content.replace(/\s+/g, ' ').trim().slice(0, 80);
    this.#held = [];
    const recorded = retry(() => this.#out.runs.createWithQuestion(created, question, title, threadWindow));
    // Before anyone waiting for `recorded`: the held events are written first.
    this.#startRecorded = recorded.then(this.#release, this.#release);
    const { thread, ...stamps } = await recorded;
    this.row = { ...this.row, ...stamps };
    return thread;
  }

  /**
   * Records the run's end with its answer in one statement (none when its session is being deleted), through
   * `retry` (an outage is waited out). When the database refuses the answer itself (not an outage) the run
   * still ends, without it, so that it never stays in flight and its followers get `done`. Rejects when not
   * even that can be recorded.
   */
  async saveEnd(
    ended: RunEndStatus,
    outcome: TurnOutcome,
    retry: <T>(store: () => Promise<T>) => Promise<T>,
  ): Promise<RecordedEnd> {
    const { row } = this;
    const end: RecordedEnd = { status: ended, text: outcome.text, error: outcome.error };
    const ending = () => ({
      status: end.status,
      partialText: end.text,
      // The id `done` will have (after an `error` event when the turn failed).
      lastEventId: this.lastId + (end.status === 'failed' ? 2 : 1),
      error: end.error,
    });
    const hasAnswer = end.text || outcome.toolCalls.length || outcome.reasoning;
    const answer =
      hasAnswer && this.stopReason !== 'deleted'
        ? {
            id: row.request_id,
            sessionId: row.session_id,
            type: 'ai' as const,
            content: end.text,
            toolCalls: outcome.toolCalls,
            reasoning: outcome.reasoning,
            runStatus: end.status,
          }
        : undefined;
    await this.#appends;
    try {
      if (!(await retry(() => this.#out.runs.endWithAnswer(row.run_id, ending(), answer))))
        return await this.#endedElsewhere(end, retry);
    } catch (err) {
      // The session was deleted meanwhile: nothing to keep.
      if (this.stopReason === 'deleted') return end;
      if (!isPermanent(err)) throw err;
      this.#out.logger.error(
        { err, runId: row.run_id },
        'runs: the answer could not be stored; the run ends without it',
      );
      if (end.status === 'finished') {
        end.status = 'failed';
        end.error = 'The answer could not be stored.';
      }
      end.text = '';
      if (!(await retry(() => this.#out.runs.end(row.run_id, ending()))))
        return await this.#endedElsewhere(end, retry);
    }
    return end;
  }

  /**
   * The run had ended when this instance came to record its end: another instance claimed it while this one was
   * cut off from the database (its lease ran out) and ended it. Its `done` says what the run's row says, which
   * is what history holds, not what this instance would have recorded. Gone with its session, `end` stands.
   */
  async #endedElsewhere(
    end: RecordedEnd,
    retry: <T>(store: () => Promise<T>) => Promise<T>,
  ): Promise<RecordedEnd> {
    const recorded = await retry(() => this.#out.runs.get(this.row.run_id));
    if (!recorded || isInFlight(recorded.status)) return end;
    // This instance's own earlier try, stored with its answer lost in an outage: nothing happened elsewhere.
    if (recorded.status === end.status && recorded.partial_text === toStorableText(end.text)) return end;
    this.#out.logger.warn(
      { runId: this.row.run_id, ended: end.status, recorded: recorded.status },
      'runs: the run was ended elsewhere meanwhile; its done says that ending',
    );
    return { status: recorded.status, text: recorded.partial_text, error: recorded.error ?? undefined };
  }

  /**
   * Writes the run's last events once its end is recorded: `error` when it failed, then `done` (held for the
   * abort's answer when an abort gate is on it). Resolves once they are stored.
   */
  async writeEnd({ status, text, error }: RecordedEnd): Promise<void> {
    if (this.gate) {
      this.gate.stored();
      await this.gate.open;
    }
    if (status === 'failed') {
      const timestamp = new Date().toISOString();
      this.emit('error', { error: error ?? 'The turn failed.', code: 'turn_failed', timestamp });
    }
    this.emit('done', status === 'finished' ? { status } : { status, partialText: text });
    await this.#appends;
  }
}

/** Saves every run of `among` that moved since its last checkpoint, in one statement. */
export async function checkpointAll(out: RunOutlets, among: Iterable<ActiveRun>): Promise<void> {
  const runs: ActiveRun[] = [];
  for (const run of among) if (run.dirty) runs.push(run);
  if (runs.length === 0) return;
  for (const run of runs) run.dirty = false;
  await out.runs
    .checkpointMany(
      out.instanceId,
      runs.map((run) => ({
        runId: run.row.run_id,
        partialText: run.partialText,
        lastEventId: run.lastId,
        toolsStarted: run.toolsStarted,
      })),
    )
    .catch((err: unknown) => {
      // Tried again at the next tick of the timer.
      for (const run of runs) run.dirty = true;
      throw err;
    });
}

/**
 * At shutdown, once `runs` stopped: saves what they wrote since their last checkpoint and lets them go
 * (`recovering`, lease expired) so that the next instance, or the next start, resumes them.
 */
export async function releaseAll(out: RunOutlets, runs: readonly ActiveRun[]): Promise<void> {
  await checkpointAll(out, runs).catch(() => undefined);
  await out.runs
    .release(
      out.instanceId,
      runs.map((r) => r.row.run_id),
    )
    .catch((err: unknown) => out.logger.warn({ err }, 'runs: could not release runs at shutdown'));
}
