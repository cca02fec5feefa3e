import { randomUUID } from 'node:crypto';
import type { RunEndStatus } from '../../../contracts/events.js';
import type { Logger } from '../../logger.js';
import type { MessageDto } from '../../../contracts/oracle.js';
import { storedDto, THREAD_WINDOW, type MessageStore, type NewMessage } from '../store/messages.js';
import type { RunStore } from '../store/runs.js';
import { runningRow, type NewRun, type RunRow } from '../store/run-rows.js';
import type { SessionRef, SessionStore } from '../store/sessions.js';
import type { ApprovalRow } from '../store/approvals.js';
import { ActiveRun, releaseAll, type RunOutlets, type StopReason } from './active-run.js';
import { whenStopped, type ControlBus } from './control-bus.js';
import type { RunEventLog, RunEventRecord } from './event-log.js';
import { followRun, isFollowable, type FollowDeps, type StopSignal } from './run-follower.js';
import { endOrphan, RunRecovery, type LeaseOptions } from './run-recovery.js';
import { RECORD_RETRY_MS, runRecordRetry } from './store-retry.js';
import type { RunExecutor, TurnOutcome, TurnRequest } from './turn.js';

export interface RunManagerOptions extends LeaseOptions {
  runs: RunStore;
  messages: MessageStore;
  sessions: SessionStore;
  log: RunEventLog;
  bus: ControlBus;
  execute: RunExecutor;
  logger: Logger;
  retentionSeconds: number;
  /** How long a new run keeps trying to record its question and itself before the turn fails (default 5 s). */
  recordRetryMs?: number;
  /** Called when this instance stops executing a run (it ended, or was let go at shutdown). */
  onRunEnded?: (row: RunRow) => void;
}

/**
 * Durable runs: each turn executes inside a run recorded in the database, its events kept in the run event log
 * for re-joining. This class starts, stops, executes and ends runs; the run being executed is an
 * {@link ActiveRun}, and the leases that let another instance resume it are {@link RunRecovery}'s.
 */
export class RunManager {
  readonly instanceId = randomUUID();
  readonly #options: RunManagerOptions;
  readonly #active = new Map<string, ActiveRun>();
  readonly #out: RunOutlets;
  readonly #recovery: RunRecovery;
  /** What following a run reads from (run-follower.ts). */
  readonly #following: FollowDeps;
  readonly #unsubscribe: () => void;
  /** Records a run's start or end through a database that may be away for a while (store-retry.ts). */
  readonly #untilStored: ReturnType<typeof runRecordRetry>;
  #closing = false;

  constructor(options: RunManagerOptions) {
    this.#options = options;
    const { runs, log, logger } = options;
    this.#out = { instanceId: this.instanceId, runs, log, logger };
    this.#untilStored = runRecordRetry(() => this.#closing, options.clock);
    this.#recovery = new RunRecovery(
      { ...options, ...this.#out },
      {
        active: this.#active,
        adopt: (row, partialText) => this.#track(row, partialText),
        execute: (run, request, continueFrom, resumeAt) =>
          this.#execute(run, request, continueFrom, undefined, undefined, undefined, resumeAt),
        finish: (run, status, outcome) => this.#finish(run, status, outcome),
      },
    );
    this.#following = { log, runs, isLocal: (runId) => this.#active.has(runId) };
    this.#unsubscribe = options.bus.subscribe((message) => {
      if (message.type === 'abort') void this.#active.get(message.runId)?.stop(message.reason);
    });
  }

  /** Starts the lease timers and resumes what earlier instances left (run-recovery.ts). */
  start(): Promise<void> {
    return this.#recovery.start();
  }

  /**
   * Starts a turn in a new run: ends a run of the same session still in flight (`aborted`: one stream per
   * session, and its partial answer is stored before the new question), stores the user's message, records
   * the run and executes it.
   */
  async startRun(params: {
    sessionId: string;
    userDid: string;
    requestId: string;
    request: TurnRequest;
    userMessage: { id: string; attachment?: Record<string, unknown> | undefined };
    session?: SessionRef | undefined;
    /** The session's runs in flight, when the caller read them with the session (else they are read here). */
    runsInFlight?: RunRow[] | undefined;
    /** The session's newest messages, when the caller read them with the session (see below). */
    thread?: (() => MessageDto[]) | undefined;
  }): Promise<{ runId: string }> {
    const { sessionId, userDid, requestId, request } = params;
    await this.#stopSession(sessionId, 'superseded', undefined, params.runsInFlight);
    const runId = `run_${randomUUID()}`;
    const created: NewRun = {
      runId,
      sessionId,
      userDid,
      requestId,
      owner: this.instanceId,
      leaseMs: this.#options.leaseMs,
      request: request as unknown as Record<string, unknown>,
    };
    const run = this.#track(runningRow(created, new Date()), '');
    run.emit('run', { runId, requestId, sessionId });
    // Recorded while the caller opens its stream: the `run` event does not wait for the database. The turn
    // starts once the question and the run are stored; if they cannot be within a few seconds (a burst, a
    // busy database), it ends `failed`.
    const { id, attachment } = params.userMessage;
    const question: NewMessage = { id, sessionId, type: 'human', content: request.message, attachment };
    // The thread the turn needs: read with the session, it is complete when no run was in flight (a run in
    // flight stores its partial answer after that read): the model starts while the run is recorded.
    // Otherwise, on a shared database, the start's statement reads it (an exclusive one has it cached).
    const known = params.thread && params.runsInFlight?.length === 0 ? params.thread : undefined;
    const readThread = !known && !this.#options.exclusiveDatabase;
    const recorded = run.saveStart(
      created,
      question,
      (store) => this.#untilStored(store, this.#options.recordRetryMs ?? RECORD_RETRY_MS),
      readThread ? THREAD_WINDOW : undefined,
    );
    // Awaited by the turn on the next turn of the event loop; a refusal that comes sooner (a permanent error
    // answered at once) is not an unhandled rejection meanwhile.
    recorded.catch(() => undefined);
    // Parsed once the turn's first event has gone out (the event loop's next turn); unreadable, the turn fails.
    const history = known
      ? new Promise<MessageDto[]>((resolve, reject) =>
          setImmediate(() => {
            try {
              resolve([...known(), storedDto(question, run.row.created_at)].slice(-THREAD_WINDOW));
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)));
            }
          }),
        )
      : recorded;
    // Refused before the executor waits for it: no unhandled rejection meanwhile (the turn fails on it).
    history.catch(() => undefined);
    this.#execute(run, request, undefined, params.session, recorded, history);
    return { runId };
  }

  /**
   * Aborts the session's run in flight (on whichever instance holds it). False when there is none. When the
   * run is executed here, this resolves once its partial answer is stored, and its stream's `done` waits for
   * `releaseDone` (so the caller can answer the abort request first, as the published SDK expects).
   */
  async abortSession(sessionId: string, releaseDone?: Promise<void>): Promise<boolean> {
    return this.#stopSession(sessionId, 'aborted', releaseDone);
  }

  /** Ends the session's runs in flight before the session is deleted. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.#stopSession(sessionId, 'deleted');
  }

  /**
   * Follows a run's events after `after`: the retained ones first, then live ones, each exactly once and in
   * order, until `done` or until `signal` aborts. Resolves when it stops (see {@link followRun}). `startedHere`:
   * the run was just started by {@link startRun} on this instance (its first events are read from memory).
   */
  follow(
    runId: string,
    after: number,
    write: (record: RunEventRecord) => void,
    signal: StopSignal,
    startedHere = false,
  ): Promise<void> {
    return followRun(this.#following, runId, after, write, signal, startedHere);
  }

  /** Whether a run's events can still be followed: it is in flight, or its events are retained. */
  followable(row: RunRow): Promise<boolean> {
    return isFollowable(this.#following, row);
  }

  /**
   * Stops executing. Runs in flight are let go (`recovering`, lease expired) so that the next instance, or
   * the next start, resumes them; their events stay where they are.
   */
  async close(): Promise<void> {
    this.#closing = true;
    this.#recovery.stop();
    this.#unsubscribe();
    const runs = [...this.#active.values()];
    await Promise.all(runs.map((run) => run.stop('shutdown')));
    // Each has left `active` by now: what they wrote since their last checkpoint is saved from this list.
    await releaseAll(this.#out, runs);
  }

  #track(row: RunRow, partialText: string): ActiveRun {
    const run = new ActiveRun(row, partialText, this.#out);
    this.#active.set(row.run_id, run);
    return run;
  }

  /** This instance no longer executes the run. */
  #letGo(run: ActiveRun): void {
    this.#active.delete(run.row.run_id);
    this.#options.onRunEnded?.(run.row);
  }

  #execute(
    run: ActiveRun,
    request: TurnRequest,
    continueFrom: string | undefined,
    session?: SessionRef,
    recorded: Promise<unknown> = Promise.resolve(),
    history: Promise<MessageDto[] | undefined> = Promise.resolve(undefined),
    resumeAt?: ApprovalRow,
  ): void {
    run.finished = (async () => {
      // The turn starts on the next turn of the event loop, so the answer's headers and its `run` event leave
      // first (on the embedded database, the turn's first queries would otherwise run before they are written).
      await new Promise((resolve) => setImmediate(resolve));
      let outcome: TurnOutcome;
      try {
        // The turn's first reads go on while its start is recorded; the model starts once it has the thread
        // (`history`: at once when it was read with the session, else with the start). A start that is not
        // recorded fails the turn, whatever the executor does.
        const executing = this.#options.execute({
          row: run.row,
          session,
          history,
          request,
          continueFrom,
          resumeAt,
          emit: (event, data) => run.emit(event, data),
          signal: run.controller.signal,
        });
        executing.catch(() => undefined);
        await recorded;
        outcome = await executing;
      } catch (err) {
        this.#options.logger.error({ err, runId: run.row.run_id }, 'runs: the turn failed to run');
        const failed = 'The turn failed.';
        outcome = { status: 'failed', text: run.partialText, reasoning: '', toolCalls: [], error: failed };
      }
      if (run.stopReason === 'shutdown') {
        this.#letGo(run);
        await run.written();
        return;
      }
      const ended = outcome.status === 'finished' || !run.stopReason ? outcome.status : 'aborted';
      await this.#finish(run, ended, outcome);
    })();
  }

  /**
   * Ends a run: its answer is stored and the run recorded ended before `done` is written, so a client that
   * reloads history on `done` finds it (a follower on another instance that sees the run ended before `done`
   * looks again); then the run is let go and its events kept for `retentionSeconds`.
   */
  async #finish(run: ActiveRun, ended: RunEndStatus, outcome: TurnOutcome): Promise<void> {
    const { row } = run;
    try {
      await run.writeEnd(await run.saveEnd(ended, outcome, (store) => this.#untilStored(store)));
    } catch (err) {
      this.#options.logger.error({ err, runId: row.run_id }, 'runs: could not record the end of a run');
    } finally {
      this.#letGo(run);
      await this.#options.log.retain(row.run_id, this.#options.retentionSeconds).catch(() => undefined);
    }
  }

  /** Stops the session's runs in flight; waits for local ones to finish. True when there was one. */
  async #stopSession(
    sessionId: string,
    reason: Exclude<StopReason, 'shutdown'>,
    releaseDone?: Promise<void>,
    known?: RunRow[],
  ): Promise<boolean> {
    // With a database of its own, the runs in flight are this instance's (those of a previous start were
    // resumed at start-up): no need to ask the database.
    const rows = this.#options.exclusiveDatabase
      ? [...this.#active.values()].filter((r) => r.row.session_id === sessionId).map((r) => r.row)
      : (known ?? (await this.#options.runs.inFlight(sessionId)));
    const waits: Promise<unknown>[] = [];
    for (const row of rows) {
      const local = this.#active.get(row.run_id);
      if (local) {
        waits.push(local.stop(reason, releaseDone));
      } else if (row.lease_expires_at && row.lease_expires_at.getTime() > Date.now()) {
        // Another instance executes it: asked over the bus, and waited for (a little).
        await this.#options.bus.publish({ type: 'abort', runId: row.run_id, reason });
        waits.push(whenStopped(this.#options, row.run_id));
      } else {
        // Nobody holds it: end it here, keeping what it had written.
        await endOrphan(this.#options, row, 'aborted');
      }
    }
    await Promise.all(waits);
    return rows.length > 0;
  }
}
