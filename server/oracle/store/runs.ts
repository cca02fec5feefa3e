import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { MessageDto } from '../../../contracts/oracle.js';
import { toStorableText } from '../../../contracts/unsafe-text.js';
import type { Db } from '../../db/index.js';
import { preparedQuery, type PreparedQuery } from '../../db/prepared-query.js';
import type { Database } from '../../db/schema.js';
import { messageRow, storedDto, type MessageStore, type NewMessage } from './messages.js';
import {
  checkpointStatement,
  endStatement,
  startStatement,
  type CheckpointValues,
  type EndValues,
  type StartRow,
  type StartValues,
} from './run-statements.js';
import {
  endingColumns,
  lockInOrder,
  STORED_IN_FLIGHT,
  storableEnding,
  storableMessage,
  threadFromJson,
  type NewRun,
  type RunCheckpoint,
  type RunEnding,
  type RunRow,
  type RunStamps,
} from './run-rows.js';

/** How many runs one checkpoint statement saves at most. */
const CHECKPOINT_BATCH = 500;

/** Durable run records. An instance owns a run while its lease holds and renews it; expired leases are claimed. */
export class RunStore {
  private readonly db: Kysely<Database>;
  /** The statements of a turn's start and end, prepared (server/db/prepared-query.ts). */
  readonly start: PreparedQuery<StartValues, StartRow>;
  readonly startWithThread: PreparedQuery<StartValues, StartRow>;
  readonly endAnswering: PreparedQuery<EndValues, { run_id: string }>;
  /** One run's checkpoint: at a run's first tool call, on a busy turn's way. */
  readonly checkpointOne: PreparedQuery<CheckpointValues, unknown>;

  /** @param messages told of the messages this store's statements write (its thread cache). */
  constructor(
    db: Db,
    private readonly messages?: MessageStore,
  ) {
    this.db = db.kysely;
    this.start = preparedQuery(db, 'oracle-run-start', startStatement(db.kysely, false));
    this.startWithThread = preparedQuery(db, 'oracle-run-start-thread', startStatement(db.kysely, true));
    this.endAnswering = preparedQuery(db, 'oracle-run-end-answer', endStatement(db.kysely));
    this.checkpointOne = preparedQuery(db, 'oracle-run-checkpoint', checkpointStatement(db.kysely));
  }

  /** Tells the message store how a statement that wrote `message` went. */
  private wrote<T>(message: NewMessage, statement: Promise<T>, createdAt?: (result: T) => Date): Promise<T> {
    return statement.then(
      (result) => {
        this.messages?.stored(message, createdAt?.(result));
        return result;
      },
      (err: unknown) => {
        this.messages?.forget(message.sessionId);
        throw err;
      },
    );
  }

  /**
   * Starts a turn in one statement: stores the user's message, marks the session active (its title from
   * the first message), and records the run. Answers the run's stamps (the rest of its row is what was given).
   * Idempotent for its own run: a retry whose earlier try was stored answers that row.
   *
   * With `threadWindow`, the same statement also reads the session's newest messages before this question (the
   * thread the turn's prompt is built from: one round trip to the database instead of two on the turn's way;
   * a retry whose earlier try was stored finds the question among them).
   */
  async createWithQuestion(
    run: NewRun,
    question: NewMessage,
    title: string,
    threadWindow?: number,
  ): Promise<RunStamps> {
    const now = new Date();
    const values: StartValues = {
      ...messageRow(question),
      title,
      now,
      runId: run.runId,
      userDid: run.userDid,
      requestId: run.requestId,
      owner: run.owner,
      leaseExpiresAt: new Date(now.getTime() + run.leaseMs),
      request: JSON.stringify(run.request),
      threadWindow: threadWindow ?? 0,
    };
    const statement = (threadWindow === undefined ? this.start : this.startWithThread)(values).then(
      ([row]) => {
        // Taken over meanwhile (another owner): nothing is answered and the try fails.
        if (!row) throw new Error('the run was not recorded: another instance owns it');
        return row;
      },
    );
    // The question and the run are stamped in one statement: the same now().
    const row = await this.wrote(question, statement, (row) => row.created_at);
    let thread: MessageDto[] | undefined;
    if (row.thread && threadWindow !== undefined) {
      // The statement read the thread as it was before its own insert: the question goes last (unless an earlier
      // try stored it), as a read after the statement would find it.
      thread = threadFromJson(row.thread);
      if (!thread.some((m) => m.id === question.id)) thread.push(storedDto(question, row.created_at));
      thread = thread.slice(-threadWindow);
    }
    return {
      created_at: row.created_at,
      updated_at: row.updated_at,
      lease_expires_at: row.lease_expires_at,
      ...(thread ? { thread } : {}),
    };
  }

  /**
   * Ends a run and stores its answer (marking the session active) in one statement. The run keeps its first
   * ending: true when this call ended it. The answer is stored only with that ending: a run another instance
   * ended meanwhile (it claimed the run while this one was cut off from the database) keeps the answer that
   * ending stored, or none, so that history and the run's recorded end say the same.
   */
  async endWithAnswer(runId: string, ending: RunEnding, answer: NewMessage | undefined): Promise<boolean> {
    if (!answer) return this.end(runId, ending);
    // A model's answer, its tool calls and their results may hold what PostgreSQL refuses (a NUL, a lone
    // surrogate): stored as U+FFFD, so a run always records its end.
    answer = storableMessage(answer);
    const { status, partialText, lastEventId, error } = storableEnding(ending);
    const values: EndValues = {
      ...messageRow(answer),
      runId,
      status,
      partialText,
      lastEventId,
      error: error ?? null,
      now: new Date(),
    };
    const ended = (await this.wrote(answer, this.endAnswering(values))).length > 0;
    // Not stored after all: a thread cache forgets what it was told.
    if (!ended) this.messages?.forget(answer.sessionId);
    return ended;
  }

  async get(runId: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('oracle_runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
  }

  /** The session's newest run. */
  async latest(sessionId: string): Promise<RunRow | undefined> {
    return this.db
      .selectFrom('oracle_runs')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('created_at', 'desc')
      .orderBy('run_id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Runs of a session still in flight (normally at most one). */
  async inFlight(sessionId: string): Promise<RunRow[]> {
    return this.db
      .selectFrom('oracle_runs')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('status', 'in', STORED_IN_FLIGHT)
      .execute();
  }

  /** Saves how far the answer got, so a crash loses at most what came after. */
  async checkpoint(
    runId: string,
    owner: string,
    state: { partialText: string; lastEventId: number; toolsStarted: boolean },
  ): Promise<void> {
    await this.checkpointOne({
      runId,
      owner,
      partialText: toStorableText(state.partialText),
      lastEventId: state.lastEventId,
      toolsStarted: state.toolsStarted,
      now: new Date(),
    });
  }

  /**
   * Saves how far each of several runs got, in one statement per {@link CHECKPOINT_BATCH} runs (the periodic
   * checkpoint of every run in flight on this instance: one statement, not one per run).
   */
  async checkpointMany(owner: string, states: RunCheckpoint[]): Promise<void> {
    const now = new Date();
    for (let i = 0; i < states.length; i += CHECKPOINT_BATCH) {
      const rows = states
        .slice(i, i + CHECKPOINT_BATCH)
        .map(
          (c) =>
            sql`(${c.runId}::text, ${toStorableText(c.partialText)}::text, ${c.lastEventId}::bigint, ${c.toolsStarted}::boolean)`,
        );
      const ids = states.slice(i, i + CHECKPOINT_BATCH).map((c) => c.runId);
      await sql`
        with locked as materialized (${lockInOrder(this.db, owner, ids)})
        update oracle_runs as r
        set partial_text = v.partial_text, last_event_id = v.last_event_id,
            tools_started = r.tools_started or v.tools_started, updated_at = ${now}
        from (values ${sql.join(rows)}) as v(run_id, partial_text, last_event_id, tools_started), locked
        where r.run_id = v.run_id and r.run_id = locked.run_id`.execute(this.db);
    }
  }

  /** Ends a run (once: a run already ended keeps its first ending). True when this call ended it. */
  async end(runId: string, ending: RunEnding): Promise<boolean> {
    ending = storableEnding(ending);
    const result = await this.db
      .updateTable('oracle_runs')
      .set(endingColumns(ending))
      .where('run_id', '=', runId)
      .where('status', 'in', STORED_IN_FLIGHT)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Renews the leases of every run this instance executes. */
  async renew(owner: string, runIds: string[], leaseMs: number): Promise<void> {
    if (runIds.length === 0) return;
    await this.db
      .with(
        (cte) => cte('locked').materialized(),
        () => lockInOrder(this.db, owner, runIds),
      )
      .updateTable('oracle_runs')
      .set({ lease_expires_at: new Date(Date.now() + leaseMs) })
      .where('run_id', 'in', (eb) => eb.selectFrom('locked').select('run_id'))
      .execute();
  }

  /** Gives up ownership (graceful shutdown): the run waits, `recovering`, for the next instance to resume it. */
  async release(owner: string, runIds: string[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.db
      .with(
        (cte) => cte('locked').materialized(),
        () => lockInOrder(this.db, owner, runIds),
      )
      .updateTable('oracle_runs')
      .set({ status: 'recovering', lease_expires_at: new Date(0), updated_at: new Date() })
      .where('run_id', 'in', (eb) => eb.selectFrom('locked').select('run_id'))
      .execute();
  }

  /**
   * Claims in-flight runs whose lease expired (their instance died or let go), at most `limit`, atomically:
   * two instances never claim the same run. `all` claims every in-flight run regardless of its lease (a single
   * embedded instance at start-up: nobody else can own them). A candidate row another transaction holds (its
   * owner checkpointing it, another sweep claiming it) is skipped, not waited for: after a database pause longer
   * than the lease, a sweep that waited deadlocked with a batched checkpoint or held its pooled connection until
   * the statement timeout. A skipped orphan is taken by the next sweep.
   */
  async claimOrphans(owner: string, leaseMs: number, limit: number, all = false): Promise<RunRow[]> {
    const now = new Date();
    const orphan = <E extends ExpressionBuilder<Database, 'oracle_runs'>>(eb: E) =>
      all ? eb.val(true) : eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]);
    const candidates = this.db
      .selectFrom('oracle_runs')
      .select('run_id')
      .where('status', 'in', STORED_IN_FLIGHT)
      .where(orphan)
      .orderBy('created_at')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    return (
      this.db
        .updateTable('oracle_runs')
        .set({
          owner,
          status: 'recovering',
          attempt: sql`attempt + 1`,
          lease_expires_at: new Date(now.getTime() + leaseMs),
          updated_at: now,
        })
        .where('run_id', 'in', candidates)
        .where('status', 'in', STORED_IN_FLIGHT)
        // Re-checked on the locked row: a concurrent claim has renewed the lease, so only one instance wins.
        .where(orphan)
        .returningAll()
        .execute()
    );
  }

  /** Marks a claimed run as running again. */
  async markRunning(runId: string, owner: string): Promise<void> {
    await this.db
      .updateTable('oracle_runs')
      .set({ status: 'running', updated_at: new Date() })
      .where('run_id', '=', runId)
      .where('owner', '=', owner)
      .execute();
  }
}
