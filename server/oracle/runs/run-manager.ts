import { randomUUID } from 'node:crypto';
import type { RunEndStatus, ServerEventName, ServerEventPayload } from '../../../contracts/events.js';
import type { Logger } from '../../logger.js';
import type { TurnOutcome, TurnRequest } from './turn.js';
import type { MessageStore } from '../store/messages.js';
import { IN_FLIGHT, type RunRow, type RunStore } from '../store/runs.js';
import type { SessionRef, SessionStore } from '../store/sessions.js';
import { createAbortGate, type AbortGate } from './abort-handshake.js';
import type { ControlBus } from './control-bus.js';
import { followRun, isFollowable, type FollowDeps } from './run-follower.js';
import { answerSoFar, endOrphan } from './run-recovery.js';
import {
  firstIdOfAttempt,
  IDS_PER_ATTEMPT,
  runEvent,
  type RunEventLog,
  type RunEventRecord,
} from './event-log.js';

/** How long a run that ended keeps trying to record its end while the database does not answer. */
const END_RETRY_MS = 30_000;

/** How long a new run keeps trying to record its question and itself before the turn fails. */
const RECORD_RETRY_MS = 5000;

/** A database error no retry cures (a constraint, a missing row): everything else is tried again. */
function isPermanent(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  // PostgreSQL SQLSTATE classes 22 (data) and 23 (integrity constraints).
  return typeof code === 'string' && /^2[23]/.test(code);
}

/** Why a run is being stopped from outside. */
type StopReason = 'aborted' | 'superseded' | 'deleted' | 'shutdown';

/** Executes the turn of a run; provided by the runtime (prompt, model, tools). */
export type RunExecutor = (run: {
  row: RunRow;
  /** The run's session, when the request that started it had it at hand (else the executor reads it). */
  session: SessionRef | undefined;
  request: TurnRequest;
  continueFrom: string | undefined;
  emit: <N extends ServerEventName>(event: N, data: ServerEventPayload<N>) => void;
  signal: AbortSignal;
}) => Promise<TurnOutcome>;

export interface RunManagerOptions {
  runs: RunStore;
  messages: MessageStore;
  sessions: SessionStore;
  log: RunEventLog;
  bus: ControlBus;
  execute: RunExecutor;
  logger: Logger;
  leaseMs: number;
  retentionSeconds: number;
  /** Only this process uses the database (embedded PGlite): at start it resumes every run in flight at once. */
  exclusiveDatabase: boolean;
  /** How often the answer so far is saved (default 1 s). */
  checkpointMs?: number;
  /** How long a new run keeps trying to record its question and itself before the turn fails (default 5 s). */
  recordRetryMs?: number;
  /** Called when this instance stops executing a run (it ended, or was let go at shutdown). */
  onRunEnded?: (row: RunRow) => void;
  /** Called when this instance resumes a run that another instance (or an earlier start) left in flight. */
  onRunResumed?: (row: RunRow) => void;
}

interface ActiveRun {
  row: RunRow;
  nextId: number;
  lastId: number;
  partialText: string;
  toolsStarted: boolean;
  dirty: boolean;
  controller: AbortController;
  stopReason: StopReason | undefined;
  /** The last write to a shared event log (undefined errors are logged where it is made). */
  appends: Promise<void>;
  finished: Promise<void>;
  /** Holds the `done` event back (the abort answer goes out first; abort-handshake.ts). */
  gate: AbortGate | undefined;
}

/**
 * Durable runs: each turn executes inside a run recorded in the database, its events kept in the run event log
 * for re-joining. The instance executing a run holds a lease and renews it; when an instance dies (or shuts
 * down and lets go) another one, or the next start, claims the run and resumes it (`run` with `resumed`) or, if
 * it had already called a tool, ends it `interrupted` with its partial text.
 */
export class RunManager {
  readonly instanceId = randomUUID();
  private readonly active = new Map<string, ActiveRun>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: () => void;
  private closing = false;

  /** What following a run reads from (run-follower.ts). */
  private readonly following: FollowDeps;

  constructor(private readonly options: RunManagerOptions) {
    this.following = { log: options.log, runs: options.runs, isLocal: (runId) => this.active.has(runId) };
    this.unsubscribe = options.bus.subscribe((message) => {
      if (message.type === 'abort') this.stopLocal(message.runId, message.reason);
    });
  }

  /** Starts the timers (lease renewal, checkpoints, orphan sweeps) and resumes what earlier instances left. */
  async start(): Promise<void> {
    const every = (ms: number, fn: () => Promise<void>): void => {
      const timer = setInterval(() => {
        fn().catch((err: unknown) => this.options.logger.warn({ err }, 'runs: background task failed'));
      }, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(Math.max(250, Math.floor(this.options.leaseMs / 3)), () =>
      this.options.runs.renew(this.instanceId, [...this.active.keys()], this.options.leaseMs),
    );
    every(this.options.checkpointMs ?? 1000, () => this.checkpointAll());
    if (!this.options.exclusiveDatabase)
      every(Math.max(500, Math.floor(this.options.leaseMs / 2)), () => this.recover(false));
    await this.recover(this.options.exclusiveDatabase);
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
  }): Promise<{ runId: string }> {
    await this.stopSession(params.sessionId, 'superseded');
    const runId = `run_${randomUUID()}`;
    const now = new Date();
    const request = params.request as unknown as Record<string, unknown>;
    const run = this.track(
      {
        run_id: runId,
        session_id: params.sessionId,
        user_did: params.userDid,
        request_id: params.requestId,
        status: 'running',
        attempt: 1,
        owner: this.instanceId,
        lease_expires_at: new Date(now.getTime() + this.options.leaseMs),
        partial_text: '',
        last_event_id: 0,
        tools_started: false,
        request,
        error: null,
        created_at: now,
        updated_at: now,
        ended_at: null,
      },
      '',
    );
    this.emit(run, 'run', { runId, requestId: params.requestId, sessionId: params.sessionId });
    // Recorded while the caller opens its stream: the `run` event does not wait for the database. The turn
    // starts once the question and the run are stored; if they cannot be, it ends `failed`.
    // A connection that cannot be had at once (a burst, a busy database) is tried again for a few seconds
    // before the turn fails.
    const recorded = this.untilStored(
      () =>
        this.options.runs
          .createWithQuestion(
            {
              runId,
              sessionId: params.sessionId,
              userDid: params.userDid,
              requestId: params.requestId,
              owner: this.instanceId,
              leaseMs: this.options.leaseMs,
              request,
            },
            {
              id: params.userMessage.id,
              sessionId: params.sessionId,
              type: 'human',
              content: params.request.message,
              attachment: params.userMessage.attachment,
            },
            params.request.message.replace(/\s+/g, ' ').trim().slice(0, 80),
          )
          .then((stamps) => {
            run.row = { ...run.row, ...stamps };
          }),
      this.options.recordRetryMs ?? RECORD_RETRY_MS,
    );
    // Awaited by the turn on the next turn of the event loop; a refusal that comes sooner (a permanent error
    // answered at once) is not an unhandled rejection meanwhile.
    recorded.catch(() => undefined);
    this.execute(run, params.request, undefined, params.session, recorded);
    return { runId };
  }

  /**
   * Aborts the session's run in flight (on whichever instance holds it). False when there is none. When the
   * run is executed here, this resolves once its partial answer is stored, and its stream's `done` waits for
   * `releaseDone` (so the caller can answer the abort request first, as the published SDK expects).
   */
  async abortSession(sessionId: string, releaseDone?: Promise<void>): Promise<boolean> {
    return this.stopSession(sessionId, 'aborted', releaseDone);
  }

  /** Ends the session's runs in flight before the session is deleted. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.stopSession(sessionId, 'deleted');
  }

  /**
   * Follows a run's events after `after`: the retained ones first, then live ones, each exactly once and in
   * order, until `done` or until `signal` aborts. Resolves when it stops (see {@link followRun}).
   */
  follow(
    runId: string,
    after: number,
    write: (record: RunEventRecord) => void,
    signal: AbortSignal,
  ): Promise<void> {
    return followRun(this.following, runId, after, write, signal);
  }

  /** Whether a run's events can still be followed: it is in flight, or its events are retained. */
  followable(row: RunRow): Promise<boolean> {
    return isFollowable(this.following, row);
  }

  /**
   * Stops executing. Runs in flight are let go (`recovering`, lease expired) so that the next instance, or
   * the next start, resumes them; their events stay where they are.
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.unsubscribe();
    const runs = [...this.active.values()];
    for (const run of runs) {
      run.stopReason = 'shutdown';
      run.controller.abort();
    }
    await Promise.all(runs.map((r) => r.finished));
    // Each has left `active` by now: what they wrote since their last checkpoint is saved from this list.
    await this.checkpointAll(runs).catch(() => undefined);
    await this.options.runs
      .release(
        this.instanceId,
        runs.map((r) => r.row.run_id),
      )
      .catch((err: unknown) => this.options.logger.warn({ err }, 'runs: could not release runs at shutdown'));
  }

  // --- internals ---

  private track(row: RunRow, partialText: string): ActiveRun {
    const run: ActiveRun = {
      row,
      nextId: firstIdOfAttempt(row.attempt - 1),
      lastId: 0,
      partialText,
      toolsStarted: row.tools_started,
      dirty: false,
      controller: new AbortController(),
      stopReason: undefined,
      appends: Promise.resolve(),
      finished: Promise.resolve(),
      gate: undefined,
    };
    this.active.set(row.run_id, run);
    return run;
  }

  private emit<N extends ServerEventName>(run: ActiveRun, event: N, data: ServerEventPayload<N>): void {
    if (run.nextId % IDS_PER_ATTEMPT === 0) throw new Error('a run attempt may not write a million events');
    const record = runEvent(run.nextId++, event, data);
    run.lastId = record.id;
    if (record.event === 'message') run.partialText += record.data.content;
    if (
      record.event === 'tool_call' ||
      record.event === 'browser_tool_call' ||
      record.event === 'action_call'
    ) {
      if (!run.toolsStarted) {
        run.toolsStarted = true;
        // Saved at once: a crash from here on must not re-run the tool. Not saved (a busy pool): the next
        // periodic checkpoint tries again (the run stays dirty), and the process goes on.
        void this.checkpoint(run).catch((err: unknown) => {
          run.dirty = true;
          this.options.logger.warn(
            { err, runId: run.row.run_id },
            'runs: could not save that a tool started',
          );
        });
      }
    }
    run.dirty = true;
    const stored = this.options.log.append(run.row.run_id, record);
    // Writes to a shared log are ordered: waiting for the last one waits for them all.
    if (stored) {
      run.appends = stored.catch((err: unknown) =>
        this.options.logger.warn(
          { err, runId: run.row.run_id },
          'runs: an event could not be stored for re-joining',
        ),
      );
    }
  }

  private execute(
    run: ActiveRun,
    request: TurnRequest,
    continueFrom: string | undefined,
    session?: SessionRef,
    recorded: Promise<void> = Promise.resolve(),
  ): void {
    run.finished = (async () => {
      // The turn starts on the next turn of the event loop, so the answer's headers and its `run` event leave
      // first (on the embedded database, the turn's first queries would otherwise run before they are written).
      await new Promise((resolve) => setImmediate(resolve));
      let outcome: TurnOutcome;
      try {
        await recorded;
        const { row } = run;
        outcome = await this.options.execute({
          row,
          session,
          request,
          continueFrom,
          emit: (event, data) => this.emit(run, event, data),
          signal: run.controller.signal,
        });
      } catch (err) {
        this.options.logger.error({ err, runId: run.row.run_id }, 'runs: the turn failed to run');
        outcome = {
          status: 'failed',
          text: run.partialText,
          reasoning: '',
          toolCalls: [],
          error: 'The turn failed.',
        };
      }
      if (run.stopReason === 'shutdown') {
        this.active.delete(run.row.run_id);
        this.options.onRunEnded?.(run.row);
        await run.appends.catch(() => undefined);
        return;
      }
      await this.finish(
        run,
        outcome.status === 'finished' || !run.stopReason ? outcome.status : 'aborted',
        outcome,
      );
    })();
  }

  private async finish(run: ActiveRun, ended: RunEndStatus, outcome: TurnOutcome): Promise<void> {
    const { row } = run;
    let status = ended;
    let text = outcome.text;
    const answer =
      (text || outcome.toolCalls.length || outcome.reasoning) && run.stopReason !== 'deleted'
        ? {
            id: row.request_id,
            sessionId: row.session_id,
            type: 'ai' as const,
            content: text,
            toolCalls: outcome.toolCalls,
            reasoning: outcome.reasoning,
            runStatus: status,
          }
        : undefined;
    try {
      // The answer is stored (and the run ended) before `done`, so a client that reloads history on `done`
      // finds it. A follower on another instance that sees the run ended before `done` reaches it looks again.
      await run.appends.catch(() => undefined);
      await this.untilStored(() =>
        this.options.runs.endWithAnswer(
          row.run_id,
          // The id `done` will have (after an `error` event when the turn failed).
          {
            status,
            partialText: text,
            lastEventId: run.lastId + (status === 'failed' ? 2 : 1),
            error: outcome.error,
          },
          answer,
        ),
      ).catch(async (err: unknown) => {
        // The session was deleted meanwhile: nothing to keep.
        if (run.stopReason === 'deleted') return;
        if (!isPermanent(err)) throw err;
        // The database refuses the answer itself (not an outage): the run still ends, without it (a turn that
        // had finished as failed), so that it never stays in flight and its followers get `done` (issue 36).
        this.options.logger.error(
          { err, runId: row.run_id },
          'runs: the answer could not be stored; the run ends without it',
        );
        if (status === 'finished') {
          status = 'failed';
          outcome = { ...outcome, error: 'The answer could not be stored.' };
        }
        text = '';
        const ending = {
          status,
          partialText: text,
          lastEventId: run.lastId + (status === 'failed' ? 2 : 1),
          error: outcome.error,
        };
        await this.untilStored(() => this.options.runs.end(row.run_id, ending));
      });
      if (run.gate) {
        run.gate.stored();
        await run.gate.open;
      }
      if (status === 'failed') {
        this.emit(run, 'error', {
          error: outcome.error ?? 'The turn failed.',
          code: 'turn_failed',
          timestamp: new Date().toISOString(),
        });
      }
      this.emit(run, 'done', status === 'finished' ? { status } : { status, partialText: text });
      await run.appends.catch(() => undefined);
    } catch (err) {
      this.options.logger.error({ err, runId: row.run_id }, 'runs: could not record the end of a run');
    } finally {
      this.active.delete(row.run_id);
      this.options.onRunEnded?.(row);
      await this.options.log.retain(row.run_id, this.options.retentionSeconds).catch(() => undefined);
    }
  }

  /**
   * Runs `store` until it succeeds: the database may be down for a while (stopped, paused, failing over), and a
   * run that cannot record its end would otherwise wait for its lease to expire and be run again elsewhere.
   * Gives up after `retryMs` or at shutdown (then the run is resumed or ended by whoever claims it).
   */
  private async untilStored(store: () => Promise<unknown>, retryMs = END_RETRY_MS): Promise<void> {
    const until = Date.now() + retryMs;
    for (;;) {
      try {
        await store();
        return;
      } catch (err) {
        if (this.closing || Date.now() >= until || isPermanent(err)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  private stopLocal(runId: string, reason: StopReason): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    run.stopReason ??= reason;
    run.controller.abort();
    return true;
  }

  /** Stops the session's runs in flight; waits for local ones to finish. True when there was one. */
  private async stopSession(
    sessionId: string,
    reason: Exclude<StopReason, 'shutdown'>,
    releaseDone?: Promise<void>,
  ): Promise<boolean> {
    // With a database of its own, the runs in flight are this instance's (those of a previous start were
    // resumed at start-up): no need to ask the database.
    const rows = this.options.exclusiveDatabase
      ? [...this.active.values()].filter((r) => r.row.session_id === sessionId).map((r) => r.row)
      : await this.options.runs.inFlight(sessionId);
    const waits: Promise<void>[] = [];
    for (const row of rows) {
      const local = this.active.get(row.run_id);
      if (local) {
        if (releaseDone) {
          // The abort handshake (abort-handshake.ts): `done` waits for the abort's answer.
          const gate = createAbortGate(releaseDone);
          local.gate = gate;
          this.stopLocal(row.run_id, reason);
          waits.push(Promise.race([gate.storedYet, local.finished]));
          continue;
        }
        this.stopLocal(row.run_id, reason);
        waits.push(local.finished);
      } else if (row.lease_expires_at && row.lease_expires_at.getTime() > Date.now()) {
        await this.options.bus.publish({
          type: 'abort',
          runId: row.run_id,
          reason,
        });
        waits.push(this.waitEnded(row.run_id, 2000));
      } else {
        // Nobody holds it: end it here, keeping what it had written.
        await endOrphan(this.options, row, 'aborted');
      }
    }
    await Promise.all(waits);
    return rows.length > 0;
  }

  private async waitEnded(runId: string, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const row = await this.options.runs.get(runId);
      if (!row || !IN_FLIGHT.includes(row.status)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Claims runs whose instance is gone and resumes them (or ends them `interrupted`). */
  private async recover(all: boolean): Promise<void> {
    if (this.closing) return;
    const rows = await this.options.runs.claimOrphans(this.instanceId, this.options.leaseMs, 20, all);
    for (const row of rows) {
      // Its lease ran out while this instance executes it (renewals came late, a busy database): it is not
      // an orphan. The claim renewed the lease; it goes on running here, not resumed or cut off a second time.
      if (this.active.has(row.run_id)) await this.options.runs.markRunning(row.run_id, this.instanceId);
      else await this.resume(row);
    }
  }

  private async resume(row: RunRow): Promise<void> {
    const { text: partialText, logged, calledTools } = await answerSoFar(this.options.log, row);
    this.options.logger.info(
      { runId: row.run_id, attempt: row.attempt, calledTools },
      'runs: recovering a run',
    );
    if (calledTools) {
      // Re-running the turn could repeat a tool's side effect: end it with what it had.
      const run = this.track(row, partialText);
      await this.finish(run, 'interrupted', {
        status: 'aborted',
        text: partialText,
        reasoning: '',
        toolCalls: [],
      });
      return;
    }
    // The events of the attempt that was cut off are gone (a restart without a shared log): a client that
    // re-joins may hold less than the answer so far, so the answer so far is sent again whole (cut back to
    // nothing, then one `message` with it). With every event in the log, the client has them and keeps them.
    const run = this.track(row, logged ? partialText : '');
    this.emit(run, 'run', {
      runId: row.run_id,
      requestId: row.request_id,
      sessionId: row.session_id,
      resumed: true,
      partialLength: logged ? partialText.length : 0,
    });
    if (!logged) this.emit(run, 'message', { content: partialText, timestamp: new Date().toISOString() });
    await this.options.runs.markRunning(row.run_id, this.instanceId);
    this.options.onRunResumed?.(row);
    this.execute(run, row.request as unknown as TurnRequest, partialText);
  }

  /** Saves every run (of `among`, else in flight) that moved since its last checkpoint, in one statement. */
  private async checkpointAll(among: ActiveRun[] = [...this.active.values()]): Promise<void> {
    const runs = among.filter((r) => r.dirty);
    if (runs.length === 0) return;
    for (const run of runs) run.dirty = false;
    await this.options.runs
      .checkpointMany(
        this.instanceId,
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

  private async checkpoint(run: ActiveRun): Promise<void> {
    run.dirty = false;
    try {
      await this.options.runs.checkpoint(run.row.run_id, this.instanceId, {
        partialText: run.partialText,
        lastEventId: run.lastId,
        toolsStarted: run.toolsStarted,
      });
    } catch (err) {
      // Not saved: the next checkpoint tries again.
      run.dirty = true;
      throw err;
    }
  }
}
