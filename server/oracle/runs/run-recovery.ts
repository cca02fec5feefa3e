import type { RunEndStatus } from '../../../contracts/events.js';
import { isToolCallEvent } from '../../../contracts/run-states.js';
import type { MessageStore } from '../store/messages.js';
import type { RunStore } from '../store/runs.js';
import type { RunRow } from '../store/run-rows.js';
import { checkpointAll, type ActiveRun, type RunOutlets } from './active-run.js';
import { systemClock, type Clock } from './clock.js';
import { firstIdOfAttempt, type RunEventLog, type RunEventRecord } from './event-log.js';
import type { TurnOutcome, TurnRequest } from './turn.js';
import type { ApprovalRow } from '../store/approvals.js';

/**
 * Leases and recovery: how a run outlives the instance that executes it.
 *
 * 1. The instance that starts a run holds its lease (`leaseMs`), renewed for every run it executes every third
 *    of a lease ({@link renewEveryMs}).
 * 2. It saves how far each run got (a checkpoint) every `checkpointMs`, and at once when the run starts a tool
 *    (active-run.ts).
 * 3. At shutdown it lets its runs go: `recovering`, lease expired (run-manager.ts, `close`).
 * 4. Every half lease ({@link sweepEveryMs}), with a shared database, each instance claims the runs in flight
 *    whose lease ran out, atomically (two never claim the same run); with a database of its own, the instance
 *    claims every run in flight once, when it starts. One sweep at a time: the runs a sweep claimed are renewed
 *    with the ones executed here until it has taken them in, so no sweep (here or elsewhere) claims one again
 *    meanwhile and resumes it a second time.
 * 5. A claimed run this instance executes itself (its renewals came late) goes on here, marked running again.
 * 6. A claimed run that waits for its user's approval of a tool call (or was decided, and nothing ran since) is
 *    taken over at that call: the turn goes on from the state recorded with the approval ({@link resumePoint}).
 *    Any other claimed run that had started a tool is ended `interrupted` with its answer so far: running the
 *    turn again could repeat the tool's side effect.
 * 7. Any other is resumed: `run` with `resumed` and the length of the answer the log holds (or 0, then the
 *    answer so far again whole, as one `message`), and the turn executes again from that answer.
 *
 * A run nobody holds that its user aborts is ended where the abort lands ({@link endOrphan}).
 */

/** Step 1: how often the leases of the runs this instance executes are renewed. */
export function renewEveryMs(leaseMs: number): number {
  return Math.max(250, Math.floor(leaseMs / 3));
}

/** Step 4: how often runs whose lease ran out are looked for (on a shared database). */
export function sweepEveryMs(leaseMs: number): number {
  return Math.max(500, Math.floor(leaseMs / 2));
}

/** How many runs one sweep claims at most. */
const CLAIM_BATCH = 20;

/** What recovery asks of the run manager, which executes and ends runs. */
export interface RecoveryHost {
  /** The runs this instance executes, by id. */
  readonly active: ReadonlyMap<string, ActiveRun>;
  /** Takes a claimed run in as one this instance executes, with its answer so far. */
  adopt(row: RunRow, partialText: string): ActiveRun;
  /** Executes the turn of an adopted run again, continuing from its answer so far (or at an approval). */
  execute(
    run: ActiveRun,
    request: TurnRequest,
    continueFrom: string | undefined,
    resumeAt?: ApprovalRow,
  ): void;
  /** Ends an adopted run: records its end and writes its `done`. */
  finish(run: ActiveRun, status: RunEndStatus, outcome: TurnOutcome): Promise<void>;
}

/** How leases are kept: the run manager's options for them. */
export interface LeaseOptions {
  leaseMs: number;
  /** How often the answer so far is saved (default 1 s). */
  checkpointMs?: number | undefined;
  /** Only this process uses the database (embedded PGlite): at start it resumes every run in flight at once. */
  exclusiveDatabase: boolean;
  /** Called when this instance resumes a run that another instance (or an earlier start) left in flight. */
  onRunResumed?: ((row: RunRow) => void) | undefined;
  /** Time for the lease timers and the store retries (tests pass a virtual one). */
  clock?: Clock | undefined;
  /** The runs' tool approvals, oldest first (step 6: a run that waits for one is taken over there). */
  approvalsOf?: ((runId: string) => Promise<ApprovalRow[]>) | undefined;
}

export type RecoveryOptions = RunOutlets & LeaseOptions;

/** The lease timers of one instance and what it does with the runs it claims (steps 1, 2, 4 to 7). */
export class RunRecovery {
  readonly #options: RecoveryOptions;
  readonly #host: RecoveryHost;
  readonly #clock: Clock;
  readonly #timers: (() => void)[] = [];
  /** Runs the sweep in progress claimed and has not taken in yet (step 4: renewed with the active ones). */
  readonly #claimed = new Set<string>();
  /** The sweep in progress: a timer that fires meanwhile starts none. */
  #sweep: Promise<void> | undefined;
  #stopped = false;

  constructor(options: RecoveryOptions, host: RecoveryHost) {
    this.#options = options;
    this.#host = host;
    this.#clock = options.clock ?? systemClock;
  }

  /** Starts the timers and claims what earlier instances left (steps 1, 2 and 4). */
  async start(): Promise<void> {
    const { runs, instanceId, leaseMs, exclusiveDatabase } = this.#options;
    const active = this.#host.active;
    this.#every(renewEveryMs(leaseMs), () =>
      runs.renew(instanceId, [...active.keys(), ...this.#claimed], leaseMs),
    );
    this.#every(this.#options.checkpointMs ?? 1000, () => checkpointAll(this.#options, active.values()));
    if (!exclusiveDatabase) this.#every(sweepEveryMs(leaseMs), () => this.recover(false));
    await this.recover(exclusiveDatabase);
  }

  /** Stops the timers; claims nothing from now on. */
  stop(): void {
    this.#stopped = true;
    for (const stop of this.#timers.splice(0)) stop();
  }

  /**
   * Step 4: claims runs whose instance is gone (every run in flight when `all`), then steps 5 to 7. While a sweep
   * is in progress, this is that sweep.
   */
  recover(all: boolean): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#sweep ??= this.#claim(all).finally(() => {
      this.#sweep = undefined;
    });
    return this.#sweep;
  }

  async #claim(all: boolean): Promise<void> {
    const { runs, instanceId, leaseMs } = this.#options;
    const rows = await runs.claimOrphans(instanceId, leaseMs, CLAIM_BATCH, all);
    for (const row of rows) this.#claimed.add(row.run_id);
    try {
      for (const row of rows) {
        // Step 5: the claim renewed the lease; the run goes on here, not resumed or cut off a second time.
        if (this.#host.active.has(row.run_id)) await runs.markRunning(row.run_id, instanceId);
        else await this.#resume(row);
        this.#claimed.delete(row.run_id);
      }
    } finally {
      // A run left unresumed by a failure is renewed no more: its lease runs out and a later sweep takes it.
      this.#claimed.clear();
    }
  }

  async #resume(row: RunRow): Promise<void> {
    const { text, logged, calledTools, records } = await answerSoFar(this.#options.log, row);
    this.#options.logger.info(
      { runId: row.run_id, attempt: row.attempt, calledTools },
      'runs: recovering a run',
    );
    const at = await this.#resumePoint(row, records);
    if (at) {
      // Step 6, at an approval: the answer so far is the one recorded with it (nothing was written after).
      const saved = (at.resume as { text?: unknown }).text;
      const resumeText = typeof saved === 'string' ? saved : '';
      const run = this.#host.adopt(row, logged ? resumeText : '');
      run.emit('run', {
        runId: row.run_id,
        requestId: row.request_id,
        sessionId: row.session_id,
        resumed: true,
        partialLength: logged ? resumeText.length : 0,
      });
      if (!logged && resumeText)
        run.emit('message', { content: resumeText, timestamp: new Date().toISOString() });
      await this.#options.runs.markRunning(row.run_id, this.#options.instanceId);
      this.#options.onRunResumed?.(row);
      this.#host.execute(run, row.request as unknown as TurnRequest, undefined, at);
      return;
    }
    if (calledTools) {
      // Step 6.
      const run = this.#host.adopt(row, text);
      await this.#host.finish(run, 'interrupted', { status: 'aborted', text, reasoning: '', toolCalls: [] });
      return;
    }
    // Step 7. Without the events of the attempt that was cut off (a restart without a shared log), a client
    // that re-joins may hold less than the answer so far: it is cut back to nothing and sent again whole. With
    // every event in the log, the client has them and keeps them.
    const run = this.#host.adopt(row, logged ? text : '');
    run.emit('run', {
      runId: row.run_id,
      requestId: row.request_id,
      sessionId: row.session_id,
      resumed: true,
      partialLength: logged ? text.length : 0,
    });
    if (!logged) run.emit('message', { content: text, timestamp: new Date().toISOString() });
    await this.#options.runs.markRunning(row.run_id, this.#options.instanceId);
    this.#options.onRunResumed?.(row);
    this.#host.execute(run, row.request as unknown as TurnRequest, text);
  }

  /**
   * The approval a claimed run can be taken over at: its latest one, when it is still pending, or when it was
   * decided and the log shows no call that started after it was asked (so nothing would run twice).
   */
  async #resumePoint(row: RunRow, records: RunEventRecord[]): Promise<ApprovalRow | undefined> {
    const approvals = await this.#options.approvalsOf?.(row.run_id);
    const last = approvals?.at(-1);
    if (!last) return undefined;
    if (last.status === 'pending') return last;
    if (records.length === 0) return undefined;
    const before = new Set(
      ((last.resume as { toolCalls?: { id: string }[] }).toolCalls ?? []).map((call) => call.id),
    );
    const startedSince = records.some(
      (r) => isToolCallEvent(r.event) && !before.has((r.data as { toolCallId: string }).toolCallId),
    );
    return startedSince ? undefined : last;
  }

  #every(ms: number, task: () => Promise<void>): void {
    this.#timers.push(
      this.#clock.every(ms, () => {
        task().catch((err: unknown) => this.#options.logger.warn({ err }, 'runs: background task failed'));
      }),
    );
  }
}

/** How far a run that lost its instance had got, from what the log and the database hold of it. */
export interface AnswerSoFar {
  /** The answer so far: rebuilt from the retained events when they hold at least the last checkpoint. */
  text: string;
  /** Every event of that text is in the log (so a client that re-joins gets each of them). */
  logged: boolean;
  /** It had started a tool (re-running the turn could repeat the tool's side effect). */
  calledTools: boolean;
  /** The run's retained events (empty when the log holds none). */
  records: RunEventRecord[];
}

/** Reads what a claimed run had done before its instance went (see {@link AnswerSoFar}). */
export async function answerSoFar(log: RunEventLog, row: RunRow): Promise<AnswerSoFar> {
  const records = await log.read(row.run_id, 0).catch(() => [] as RunEventRecord[]);
  const calledTools = row.tools_started || records.some((r) => isToolCallEvent(r.event));
  if (records.length === 0) {
    return { text: row.partial_text, logged: row.partial_text === '', calledTools, records };
  }
  let text = '';
  for (const r of records) {
    if (r.event === 'message') text += r.data.content;
    if (r.event === 'run') {
      const { partialLength } = r.data;
      if (partialLength !== undefined) text = text.slice(0, partialLength);
    }
  }
  return text.length >= row.partial_text.length
    ? { text, logged: true, calledTools, records }
    : { text: row.partial_text, logged: false, calledTools, records };
}

/**
 * Ends a run nobody executes (`aborted` by its user, or `interrupted`): its answer so far is kept in history, and
 * its stream gets `done` with an id above every id of the attempt that was cut off. Nothing when it has ended
 * meanwhile.
 */
export async function endOrphan(
  deps: { runs: RunStore; messages: MessageStore; log: RunEventLog; retentionSeconds: number },
  row: RunRow,
  status: 'aborted' | 'interrupted',
): Promise<void> {
  const partialText = (await answerSoFar(deps.log, row)).text;
  const id = firstIdOfAttempt(row.attempt);
  if (!(await deps.runs.end(row.run_id, { status, partialText, lastEventId: id }))) return;
  if (partialText) {
    await deps.messages
      .insert({
        id: row.request_id,
        sessionId: row.session_id,
        type: 'ai',
        content: partialText,
        runStatus: status,
      })
      .catch(() => undefined);
  }
  await deps.log
    .append(row.run_id, { id, event: 'done', data: { status, partialText } })
    ?.catch(() => undefined);
  await deps.log.retain(row.run_id, deps.retentionSeconds).catch(() => undefined);
}
