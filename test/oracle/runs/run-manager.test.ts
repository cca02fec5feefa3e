import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalControlBus, type ControlBus } from '../../../server/oracle/runs/control-bus.js';
import type { RunEventLog, RunEventRecord } from '../../../server/oracle/runs/event-log.js';
import { createMemoryRunEventLog } from '../../../server/oracle/runs/memory-event-log.js';
import { RunManager, type RunManagerOptions } from '../../../server/oracle/runs/run-manager.js';
import type { RunExecutor } from '../../../server/oracle/runs/turn.js';
import { MessageStore } from '../../../server/oracle/store/messages.js';
import { RunStore } from '../../../server/oracle/store/runs.js';
import { SessionStore } from '../../../server/oracle/store/sessions.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { insertOrphanRun } from '../../helpers/oracle/orphan-run.js';

// The run manager's own decisions, each on a manager built inside its test (so that per-test coverage sees
// them; issue 26): how a turn that fails or is stopped ends, what a database error means, what is saved and
// when, what close() lets go, and how another instance's run is stopped. Real stores on the test database
// (PGlite, or PostgreSQL with DATABASE_URL); the executor is scripted here.

const ORACLE = 'did:key:z6MkrunManagerOracle';
const USER = 'did:key:z6MkrunManagerUser';

/** The real run store, with its writes counted and failed on purpose. */
class ScriptedRunStore extends RunStore {
  createErrors: Error[] = [];
  failCreatesForever: Error | undefined = undefined;
  creates = 0;
  endError: Error | undefined = undefined;
  plainEndError: Error | undefined = undefined;
  checkpoints = 0;
  checkpointManyErrors: Error[] = [];
  renewals = true;
  /** How long recording a run's start takes (its turn's first reads and events may come first). */
  createDelayMs = 0;
  override async createWithQuestion(
    ...args: Parameters<RunStore['createWithQuestion']>
  ): ReturnType<RunStore['createWithQuestion']> {
    this.creates++;
    if (this.createDelayMs > 0) await sleep(this.createDelayMs);
    if (this.failCreatesForever !== undefined) throw this.failCreatesForever;
    const err = this.createErrors.shift();
    if (err !== undefined) throw err;
    const stamps = await super.createWithQuestion(...args);
    this.recordedRuns.add(args[0].runId);
    return stamps;
  }
  /** The runs whose start is recorded. */
  readonly recordedRuns = new Set<string>();
  override async endWithAnswer(...args: Parameters<RunStore['endWithAnswer']>): Promise<boolean> {
    if (this.endError !== undefined) throw this.endError;
    return super.endWithAnswer(...args);
  }
  override async end(...args: Parameters<RunStore['end']>): Promise<boolean> {
    if (this.plainEndError !== undefined) throw this.plainEndError;
    return super.end(...args);
  }
  override async checkpoint(...args: Parameters<RunStore['checkpoint']>): Promise<void> {
    this.checkpoints++;
    return super.checkpoint(...args);
  }
  override async checkpointMany(...args: Parameters<RunStore['checkpointMany']>): Promise<void> {
    const err = this.checkpointManyErrors.shift();
    if (err !== undefined) throw err;
    return super.checkpointMany(...args);
  }
  override async renew(...args: Parameters<RunStore['renew']>): Promise<void> {
    if (this.renewals) return super.renew(...args);
  }
}

const sqlError = (code: string | number): Error =>
  Object.assign(new Error(`database error ${String(code)}`), { code });
const transient = (): Error => sqlError('08006');

let db: TestDb;
beforeEach(async () => {
  db = await openTestDb();
});
afterEach(async () => {
  await db.close();
});

interface Harness {
  m: RunManager;
  runs: ScriptedRunStore;
  log: RunEventLog;
  bus: ControlBus;
  logs: { msg: string; runId?: string }[];
}

function harness(execute: RunExecutor, options: Partial<RunManagerOptions> = {}): Harness {
  const runs = (options.runs as ScriptedRunStore | undefined) ?? new ScriptedRunStore(db);
  const log = options.log ?? createMemoryRunEventLog({ maxAgeSeconds: 60 });
  const bus = options.bus ?? createLocalControlBus();
  const logs: Harness['logs'] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  const m = new RunManager({
    runs,
    messages: new MessageStore(db.kysely),
    sessions: new SessionStore(db, ORACLE),
    log,
    bus,
    execute,
    logger: logger,
    leaseMs: 3000,
    retentionSeconds: 60,
    exclusiveDatabase: false,
    checkpointMs: 60_000,
    ...options,
  });
  return { m, runs, log, bus, logs };
}

async function newSession(): Promise<string> {
  return (await new SessionStore(db, ORACLE).create(USER, {})).session_id;
}

async function startTurn(
  m: RunManager,
  message = 'hello',
  sessionId?: string,
): Promise<{ runId: string; sessionId: string; requestId: string }> {
  const session = sessionId ?? (await newSession());
  const requestId = `req-${crypto.randomUUID()}`;
  const { runId } = await m.startRun({
    sessionId: session,
    userDid: USER,
    requestId,
    request: { message },
    userMessage: { id: `q-${requestId}` },
  });
  return { runId, sessionId: session, requestId };
}

async function follow(m: RunManager, runId: string, after = 0): Promise<RunEventRecord[]> {
  const seen: RunEventRecord[] = [];
  await m.follow(runId, after, (r) => seen.push(r), new AbortController().signal);
  return seen;
}

const say = (content: string) => ({ content, timestamp: new Date().toISOString() });

/** A promise the test settles: the executor awaits `held`, the test calls `release()`. */
function hold(): { held: Promise<void>; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  return { held, release };
}

/** Resolves when the signal aborts. */
const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** An executor that writes `text`, then waits for its run to be stopped and answers `aborted` with it. */
function writesUntilAborted(text: string): RunExecutor {
  return async ({ emit, signal }) => {
    emit('message', say(text));
    await aborted(signal);
    return { status: 'aborted', text, reasoning: '', toolCalls: [] };
  };
}

async function answerOf(sessionId: string, requestId: string) {
  return (await new MessageStore(db.kysely).all(sessionId)).find((x) => x.id === requestId);
}

/**
 * Waits until each run's row is in the database. startRun answers before its run is recorded (the turn awaits the
 * record), and a session's runs in flight are found in the database: an abort or a delete sent sooner finds none.
 */
async function recorded(...runIds: string[]): Promise<void> {
  const store = new RunStore(db);
  for (const runId of runIds) {
    const row = await until(
      () => store.get(runId),
      (r) => r !== undefined,
      10_000,
    );
    expect(row?.run_id).toBe(runId);
  }
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > end) return value;
    await sleep(20);
  }
}

describe('a turn that fails', () => {
  it('an executor that throws: the text so far is kept, then `error` and `done` failed; the run records the id of done', async () => {
    const { m, runs, logs } = harness(({ emit }) => {
      emit('message', say('half '));
      return Promise.reject(new Error('the model broke'));
    });
    const { runId, sessionId, requestId } = await startTurn(m);
    const events = await follow(m, runId);
    expect(events.map((e) => e.event)).toEqual(['run', 'message', 'error', 'done']);
    const [, , error, done] = events;
    expect(error?.data).toMatchObject({ error: 'The turn failed.', code: 'turn_failed' });
    expect(done?.data).toEqual({ status: 'failed', partialText: 'half ' });
    expect(done?.id).toBe((error?.id ?? 0) + 1);
    const row = await runs.get(runId);
    expect(row).toMatchObject({ status: 'failed', partial_text: 'half ', error: 'The turn failed.' });
    expect(Number(row?.last_event_id)).toBe(done?.id);
    const answer = await answerOf(sessionId, requestId);
    expect(answer).toMatchObject({ type: 'ai', content: 'half ', runStatus: 'failed' });
    expect(answer).not.toHaveProperty('reasoning');
    expect(answer).not.toHaveProperty('toolCalls');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'runs: the turn failed to run', runId }));
    await m.close();
  });

  it('an executor that answers failed without a reason and without text: "The turn failed.", no answer kept', async () => {
    const { m } = harness(() =>
      Promise.resolve({ status: 'failed', text: '', reasoning: '', toolCalls: [] }),
    );
    const { runId, sessionId, requestId } = await startTurn(m);
    const events = await follow(m, runId);
    expect(events.at(-2)?.data).toMatchObject({ error: 'The turn failed.', code: 'turn_failed' });
    expect(events.at(-1)?.data).toEqual({ status: 'failed', partialText: '' });
    expect(await answerOf(sessionId, requestId)).toBeUndefined();
    await m.close();
  });

  it('a finished turn: `done` is exactly {status: finished}, its id recorded', async () => {
    const { m, runs } = harness(({ emit }) => {
      emit('message', say('all'));
      return Promise.resolve({ status: 'finished', text: 'all', reasoning: '', toolCalls: [] });
    });
    const { runId } = await startTurn(m);
    const events = await follow(m, runId);
    expect(events.at(-1)?.data).toEqual({ status: 'finished' });
    expect(Number((await runs.get(runId))?.last_event_id)).toBe(events.at(-1)?.id);
    await m.close();
  });
});

describe('a turn stopped from outside', () => {
  it('aborted by its user: `aborted` even when the executor fails on the abort; finished when it finished anyway', async () => {
    const failing = harness(async ({ emit, signal }) => {
      emit('message', say('so far'));
      await aborted(signal);
      throw new Error('cut off');
    });
    const a = await startTurn(failing.m);
    await recorded(a.runId);
    expect(await failing.m.abortSession(a.sessionId)).toBe(true);
    expect((await follow(failing.m, a.runId)).at(-1)?.data).toEqual({
      status: 'aborted',
      partialText: 'so far',
    });
    await failing.m.close();

    const finishing = harness(async ({ emit, signal }) => {
      emit('message', say('done anyway'));
      await aborted(signal);
      return { status: 'finished', text: 'done anyway', reasoning: '', toolCalls: [] };
    });
    const b = await startTurn(finishing.m);
    await recorded(b.runId);
    await finishing.m.abortSession(b.sessionId);
    expect((await follow(finishing.m, b.runId)).at(-1)?.data).toEqual({ status: 'finished' });
    await finishing.m.close();
  });

  it('superseded by a new turn of its session: `aborted`, even when the executor fails on the abort', async () => {
    let turns = 0;
    const { m } = harness(async ({ emit, signal }) => {
      if (++turns > 1) return { status: 'finished', text: '', reasoning: '', toolCalls: [] };
      emit('message', say('first'));
      await aborted(signal);
      throw new Error('cut off');
    });
    const first = await startTurn(m);
    await recorded(first.runId);
    await startTurn(m, 'again', first.sessionId);
    expect((await follow(m, first.runId)).at(-1)?.data).toEqual({ status: 'aborted', partialText: 'first' });
    await m.close();
  });

  it('a session with no run in flight: abortSession answers false', async () => {
    const { m } = harness(() =>
      Promise.resolve({ status: 'finished', text: '', reasoning: '', toolCalls: [] }),
    );
    expect(await m.abortSession(await newSession())).toBe(false);
    await m.close();
  });

  it('its session deleted: no answer is kept, and `done` still goes out when the end cannot be recorded', async () => {
    const { m, runs, logs } = harness(writesUntilAborted('partial'));
    const { runId, sessionId, requestId } = await startTurn(m);
    await recorded(runId);
    // The session's rows are going: the run's end violates a foreign key (a permanent error).
    runs.endError = sqlError('23503');
    await m.deleteSession(sessionId);
    expect((await follow(m, runId)).at(-1)).toMatchObject({ event: 'done', data: { status: 'aborted' } });
    expect(await answerOf(sessionId, requestId)).toBeUndefined();
    expect(logs.map((l) => l.msg)).not.toContain('runs: could not record the end of a run');
    await m.close();
  });

  it('deleted with its end recorded: no answer kept either', async () => {
    const { m, runs } = harness(writesUntilAborted('partial'));
    const { runId, sessionId, requestId } = await startTurn(m);
    await recorded(runId);
    await m.deleteSession(sessionId);
    expect((await runs.get(runId))?.status).toBe('aborted');
    expect(await answerOf(sessionId, requestId)).toBeUndefined();
    await m.close();
  });

  // Issue 36: an answer PostgreSQL refused for good left the run in flight for ever and its followers hanging.
  it('an answer the database refuses for good: the run ends without it, logged, and `done` is written', async () => {
    const { m, runs, log, logs } = harness(writesUntilAborted('partial'));
    const { runId, sessionId } = await startTurn(m);
    await recorded(runId);
    runs.endError = sqlError('22P05');
    await m.abortSession(sessionId);
    expect((await log.read(runId, 0)).map((r) => r.event)).toEqual(['run', 'message', 'done']);
    expect((await runs.get(runId))?.status).toBe('aborted');
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: 'runs: the answer could not be stored; the run ends without it',
        runId,
      }),
    );
    await m.close();
  });

  it('an end that cannot be recorded at all for good (not a deleted session): logged, and no `done` is written', async () => {
    const { m, runs, log, logs } = harness(writesUntilAborted('partial'));
    const { runId, sessionId } = await startTurn(m);
    await recorded(runId);
    runs.endError = sqlError('23503');
    runs.plainEndError = sqlError('23503');
    await m.abortSession(sessionId);
    expect((await log.read(runId, 0)).map((r) => r.event)).toEqual(['run', 'message']);
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'runs: could not record the end of a run', runId }),
    );
    await m.close();
  });

  it('with a database of its own: only the session asked for is stopped', async () => {
    const { m, runs } = harness(writesUntilAborted('x'), { exclusiveDatabase: true });
    const a = await startTurn(m);
    const b = await startTurn(m);
    await recorded(a.runId, b.runId);
    expect(await m.abortSession(a.sessionId)).toBe(true);
    expect(await m.abortSession(await newSession())).toBe(false);
    expect((await runs.get(a.runId))?.status).toBe('aborted');
    expect((await runs.get(b.runId))?.status).toBe('running');
    await m.close();
  });

  it('an abort on the bus for a run this instance does not hold changes nothing here', async () => {
    const { m, bus, runs } = harness(writesUntilAborted('x'));
    const { runId } = await startTurn(m);
    await recorded(runId);
    await bus.publish({ type: 'abort', runId: 'run_elsewhere', reason: 'aborted' });
    await sleep(30);
    expect((await runs.get(runId))?.status).toBe('running');
    await m.close();
  });
});

describe('a run nobody holds (its lease ran out)', () => {
  it('aborted by its user: ended here, its text kept in history, and nothing kept when it had none', async () => {
    const { m, runs } = harness(() => Promise.reject(new Error('not run here')));
    const withText = await newSession();
    const empty = await newSession();
    for (const [sessionId, partialText] of [
      [withText, 'left behind'],
      [empty, ''],
    ] as const) {
      await insertOrphanRun(db, {
        runId: `run_${sessionId}`,
        requestId: `req_${sessionId}`,
        sessionId,
        userDid: USER,
        question: 'q',
        partialText,
      });
      expect(await m.abortSession(sessionId)).toBe(true);
      expect(await runs.get(`run_${sessionId}`)).toMatchObject({
        status: 'aborted',
        partial_text: partialText,
      });
    }
    expect(await answerOf(withText, `req_${withText}`)).toMatchObject({
      content: 'left behind',
      runStatus: 'aborted',
    });
    expect(await answerOf(empty, `req_${empty}`)).toBeUndefined();
    await m.close();
  });
});

describe('another instance holds the run', () => {
  it("another instance's sweep leaves a run whose lease holds where it is", async () => {
    const { held, release } = hold();
    const holder = harness(
      async () => {
        await held;
        return { status: 'finished', text: '', reasoning: '', toolCalls: [] };
      },
      { leaseMs: 1000 },
    );
    const other = harness(() => Promise.reject(new Error('not run here')), { leaseMs: 1000 });
    await holder.m.start();
    const { runId } = await startTurn(holder.m);
    await other.m.start();
    // The other's sweep runs every 500 ms; the holder renews the lease every 333 ms.
    await sleep(1200);
    expect((await holder.runs.get(runId))?.owner).toBe(holder.m.instanceId);
    release();
    expect((await follow(holder.m, runId)).at(-1)?.data).toEqual({ status: 'finished' });
    await other.m.close();
    await holder.m.close();
  });

  it('abortSession asks it over the bus and returns once the run has ended there', async () => {
    const bus = createLocalControlBus();
    let sawAbort = false;
    const holder = harness(
      async ({ emit, signal }) => {
        emit('message', say('far away'));
        await aborted(signal);
        sawAbort = true;
        // Ending takes a moment over there.
        await sleep(200);
        return { status: 'aborted', text: 'far away', reasoning: '', toolCalls: [] };
      },
      { bus },
    );
    const other = harness(() => Promise.reject(new Error('not used')), { bus });
    const { runId, sessionId } = await startTurn(holder.m);
    await recorded(runId);
    const started = Date.now();
    expect(await other.m.abortSession(sessionId)).toBe(true);
    const took = Date.now() - started;
    expect(sawAbort).toBe(true);
    expect((await holder.runs.get(runId))?.status).toBe('aborted');
    // It polls until the run ends (about 200 ms here), not for its whole 2 s budget.
    expect(took).toBeLessThan(1800);
    await holder.m.close();
    await other.m.close();
  });
});

describe('database errors when a turn starts', () => {
  it('a permanent error (SQLSTATE class 22 or 23) fails the turn at once; anything else is tried again', async () => {
    const permanent = harness(() =>
      Promise.resolve({ status: 'finished', text: 'ok', reasoning: '', toolCalls: [] }),
    );
    permanent.runs.createErrors = [sqlError('23505')];
    const a = await startTurn(permanent.m);
    expect((await follow(permanent.m, a.runId)).at(-1)?.data).toMatchObject({ status: 'failed' });
    expect(permanent.runs.creates).toBe(1);
    permanent.runs.createErrors = [sqlError('22P02')];
    const b = await startTurn(permanent.m);
    expect((await follow(permanent.m, b.runId)).at(-1)?.data).toMatchObject({ status: 'failed' });
    expect(permanent.runs.creates).toBe(2);
    await permanent.m.close();

    for (const err of [transient(), sqlError(23505), new Error('no code')]) {
      const retried = harness(() =>
        Promise.resolve({ status: 'finished', text: 'ok', reasoning: '', toolCalls: [] }),
      );
      retried.runs.createErrors = [err];
      const c = await startTurn(retried.m);
      expect((await follow(retried.m, c.runId)).at(-1)?.data).toEqual({ status: 'finished' });
      expect(retried.runs.creates).toBe(2);
      await retried.m.close();
    }
  });

  it('a database that does not come back within recordRetryMs (5 s by default) fails the turn', async () => {
    const { m, runs } = harness(
      () => Promise.resolve({ status: 'finished', text: 'ok', reasoning: '', toolCalls: [] }),
      { recordRetryMs: 1000 },
    );
    runs.failCreatesForever = transient();
    const started = Date.now();
    const { runId } = await startTurn(m);
    expect((await follow(m, runId)).at(-1)?.data).toMatchObject({ status: 'failed' });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(950);
    // Its own limit, not the default's 5 s.
    expect(waited).toBeLessThan(4000);
    // Tried every 250 ms meanwhile.
    expect(runs.creates).toBeGreaterThanOrEqual(3);
    await m.close();
  });

  it('close() stops trying at once', async () => {
    const { m, runs } = harness(() =>
      Promise.resolve({ status: 'finished', text: 'ok', reasoning: '', toolCalls: [] }),
    );
    runs.failCreatesForever = transient();
    await startTurn(m);
    await sleep(300);
    const started = Date.now();
    await m.close();
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("the session's title is the question's first 80 characters, its white space folded", async () => {
    const { m } = harness(() =>
      Promise.resolve({ status: 'finished', text: '', reasoning: '', toolCalls: [] }),
    );
    const question = ` first \n\t line  ${'x'.repeat(100)}`;
    const { runId, sessionId } = await startTurn(m, question);
    await follow(m, runId);
    const row = await new SessionStore(db, ORACLE).get(USER, sessionId);
    expect(row?.title).toBe(`first line ${'x'.repeat(69)}`);
    await m.close();
  });
});

describe('what is saved while a run works', () => {
  for (const event of ['tool_call', 'browser_tool_call', 'action_call'] as const) {
    it(`a ${event} is saved at once as a started tool (once per run), not at the next checkpoint, even before the run's start is recorded`, async () => {
      const { held, release } = hold();
      const { m, runs } = harness(async ({ emit, row }) => {
        const call = {
          requestId: row.request_id,
          sessionId: row.session_id,
          toolCallId: 'call_1',
          eventId: 'call_1',
          toolName: 'a_tool',
          args: {},
          status: 'isRunning',
        };
        emit(event, call as never);
        emit(event, { ...call, toolCallId: 'call_2', eventId: 'call_2' });
        await held;
        return { status: 'finished', text: '', reasoning: '', toolCalls: [] };
      });
      // The executor emits at once, while the start is being recorded (a real one waits for its thread first).
      runs.createDelayMs = 100;
      const { runId } = await startTurn(m);
      const row = await until(
        () => runs.get(runId),
        (r) => r?.tools_started === true,
      );
      expect(row?.tools_started).toBe(true);
      expect(runs.checkpoints).toBe(1);
      release();
      await follow(m, runId);
      await m.close();
    });
  }

  it('the events a turn writes while its start is being recorded are held until it is: whoever sees one finds the run', async () => {
    const { m, runs } = harness(({ emit }) => {
      emit('message', say('early '));
      emit('message', say('words '));
      return Promise.resolve({ status: 'finished', text: 'early words ', reasoning: '', toolCalls: [] });
    });
    runs.createDelayMs = 100;
    const { runId } = await startTurn(m);
    const seen: { event: string; id: number; recorded: boolean }[] = [];
    await m.follow(
      runId,
      0,
      (r) => seen.push({ event: r.event, id: r.id, recorded: runs.recordedRuns.has(runId) }),
      new AbortController().signal,
      true,
    );
    // The `run` event goes out at once (the stream opens); the turn's own events wait for the record.
    expect(seen.map((e) => e.event)).toEqual(['run', 'message', 'message', 'done']);
    expect(seen.map((e) => e.id)).toEqual([1, 2, 3, 4]);
    expect(seen.filter((e) => e.event !== 'run').every((e) => e.recorded)).toBe(true);
    await m.close();
  });

  it('given the thread read with its session (no run in flight), the model has it at once, ending with the question', async () => {
    let history: { content: string }[] | undefined;
    let recordedAtHistory: boolean | undefined;
    let runIdSeen = '';
    const { m, runs } = harness(async ({ history: thread, row }) => {
      runIdSeen = row.run_id;
      history = await thread;
      recordedAtHistory = runs.recordedRuns.has(row.run_id);
      return { status: 'finished', text: 'ok', reasoning: '', toolCalls: [] };
    });
    runs.createDelayMs = 100;
    const sessionId = await newSession();
    const earlier = {
      id: 'm-1',
      type: 'human' as const,
      content: 'earlier',
      createdAt: new Date().toISOString(),
    };
    const { runId } = await m.startRun({
      sessionId,
      userDid: USER,
      requestId: 'req-thread',
      request: { message: 'now' },
      userMessage: { id: 'q-thread' },
      runsInFlight: [],
      thread: () => [earlier],
    });
    await follow(m, runId);
    expect(runIdSeen).toBe(runId);
    expect(history?.map((x) => x.content)).toEqual(['earlier', 'now']);
    expect(recordedAtHistory).toBe(false);
    // With a run in flight (its partial answer is stored first), the thread comes with the start's record.
    const { runId: second } = await m.startRun({
      sessionId,
      userDid: USER,
      requestId: 'req-thread-2',
      request: { message: 'again' },
      userMessage: { id: 'q-thread-2' },
      runsInFlight: [(await runs.get(runId))!],
      thread: () => [earlier],
    });
    await follow(m, second);
    expect(history?.map((x) => x.content)).toEqual(['now', 'ok', 'again']);
    expect(recordedAtHistory).toBe(true);
    await m.close();
  });

  it('a thread read with the session that cannot be parsed fails the turn (the process goes on)', async () => {
    const { m } = harness(async ({ history }) => {
      await history;
      return { status: 'finished', text: 'never', reasoning: '', toolCalls: [] };
    });
    const { runId } = await m.startRun({
      sessionId: await newSession(),
      userDid: USER,
      requestId: 'req-unreadable',
      request: { message: 'hi' },
      userMessage: { id: 'q-unreadable' },
      runsInFlight: [],
      thread: () => JSON.parse('{not json') as never,
    });
    const events = await follow(m, runId);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
    await m.close();
  });

  it('a run that only wrote text: its checkpoint saves the text and no started tool', async () => {
    const { held, release } = hold();
    const { m, runs } = harness(
      async ({ emit }) => {
        emit('message', say('words '));
        await held;
        return { status: 'finished', text: 'words ', reasoning: '', toolCalls: [] };
      },
      { checkpointMs: 50 },
    );
    await m.start();
    const { runId } = await startTurn(m);
    const row = await until(
      () => runs.get(runId),
      (r) => r?.partial_text === 'words ',
    );
    expect(row).toMatchObject({ partial_text: 'words ', tools_started: false });
    expect(runs.checkpoints).toBe(0);
    release();
    await follow(m, runId);
    await m.close();
  });

  it('a checkpoint the database refuses is logged and saved at the next tick', async () => {
    const { held, release } = hold();
    const { m, runs, logs } = harness(
      async ({ emit }) => {
        emit('message', say('kept '));
        await held;
        return { status: 'finished', text: 'kept ', reasoning: '', toolCalls: [] };
      },
      { checkpointMs: 50 },
    );
    runs.checkpointManyErrors = [transient()];
    await m.start();
    const { runId } = await startTurn(m);
    const row = await until(
      () => runs.get(runId),
      (r) => r?.partial_text === 'kept ',
    );
    expect(row?.partial_text).toBe('kept ');
    expect(runs.checkpointManyErrors).toEqual([]);
    const warned = logs.find((l) => l.msg === 'runs: background task failed') as
      { err?: { message?: string } } | undefined;
    expect(warned?.err?.message).toBe('database error 08006');
    release();
    await follow(m, runId);
    await m.close();
  });

  it('the lease of a run in flight is renewed', async () => {
    const { held, release } = hold();
    // No sweep (a database of its own), so only the renewals keep the lease.
    const { m, runs } = harness(
      async () => {
        await held;
        return { status: 'finished', text: '', reasoning: '', toolCalls: [] };
      },
      { leaseMs: 1000, exclusiveDatabase: true },
    );
    await m.start();
    const { runId } = await startTurn(m);
    // Renewed every 333 ms: a lease of a second never runs out (unrenewed, it would have by now).
    await sleep(1500);
    expect((await runs.get(runId))?.lease_expires_at?.getTime()).toBeGreaterThan(Date.now());
    release();
    await follow(m, runId);
    await m.close();
  });

  it('a run whose lease ran out while it works here (renewals late) goes on here, not resumed a second time', async () => {
    let calls = 0;
    const { held, release } = hold();
    const renewed = harness(
      async ({ emit }) => {
        calls++;
        emit('message', say('long '));
        await held;
        return { status: 'finished', text: 'long ', reasoning: '', toolCalls: [] };
      },
      { leaseMs: 600 },
    );
    await renewed.m.start();
    const a = await startTurn(renewed.m);
    // Renewals fail to come (a busy database): the lease runs out, and this instance's own sweep claims its run.
    renewed.runs.renewals = false;
    await sleep(1500);
    release();
    const events = await follow(renewed.m, a.runId);
    expect(calls).toBe(1);
    expect(events.filter((e) => e.event === 'run')).toHaveLength(1);
    expect(events.at(-1)?.data).toEqual({ status: 'finished' });
    await renewed.m.close();
  }, 10_000);
});

describe('a shared log that stores events a moment later', () => {
  it('the run is recorded ended only once every event of it is stored', async () => {
    const memory = createMemoryRunEventLog({ maxAgeSeconds: 60 });
    const log: RunEventLog = {
      ...memory,
      append: (runId, record) =>
        sleep(record.event === 'message' ? 100 : 0).then(() => {
          void memory.append(runId, record);
        }),
      read: (runId, after) => memory.read(runId, after),
      subscribe: (runId, listener) => memory.subscribe(runId, listener),
      retain: (runId, seconds) => memory.retain(runId, seconds),
      close: () => memory.close(),
    };
    let storedAtEnd: string[] | undefined;
    class Watched extends ScriptedRunStore {
      override async endWithAnswer(...args: Parameters<RunStore['endWithAnswer']>): Promise<boolean> {
        storedAtEnd = (await memory.read(args[0], 0)).map((r) => r.event);
        return super.endWithAnswer(...args);
      }
    }
    const { m } = harness(
      ({ emit }) => {
        emit('message', say('slowly stored'));
        return Promise.resolve({ status: 'finished', text: 'slowly stored', reasoning: '', toolCalls: [] });
      },
      { log, runs: new Watched(db) },
    );
    const { runId } = await startTurn(m);
    await until(
      () => memory.read(runId, 0),
      (records) => records.some((r) => r.event === 'done'),
    );
    expect(storedAtEnd).toEqual(['run', 'message']);
    await m.close();
  });
});

describe('a run that ends', () => {
  it('is let go: onRunEnded once with its row, its events kept for retentionSeconds, then dropped', async () => {
    const ended: string[] = [];
    const { m, runs } = harness(
      ({ emit }) => {
        emit('message', say('brief'));
        return Promise.resolve({ status: 'finished', text: 'brief', reasoning: '', toolCalls: [] });
      },
      { retentionSeconds: 0.3, onRunEnded: (row) => ended.push(row.run_id) },
    );
    const { runId } = await startTurn(m);
    expect((await follow(m, runId)).map((r) => r.event)).toEqual(['run', 'message', 'done']);
    await until(
      () => Promise.resolve(ended.length),
      (n) => n > 0,
    );
    expect(ended).toEqual([runId]);
    const row = await runs.get(runId);
    if (!row) throw new Error('the run has no row');
    expect(row.status).toBe('finished');
    expect(await m.followable(row)).toBe(true);
    await sleep(600);
    expect(await m.followable(row)).toBe(false);
    // Its events are gone (GET /runs/:runId answers 404 now); a follower gets only its ending, from its row.
    expect(await follow(m, runId)).toEqual([{ id: 3, event: 'done', data: { status: 'finished' } }]);
    expect(ended).toEqual([runId]);
    await m.close();
  });
});

describe('a run another instance ended while this one executed it', () => {
  // A database pause longer than the lease: another instance claimed the run and ended it (`interrupted`, with
  // the answer so far the log held) before this one, cut off meanwhile, came to record its own end.
  it('ends with the recorded ending: its done says it and history keeps that answer, not this one', async () => {
    const { m, runs, logs } = harness(async ({ row, emit }) => {
      emit('message', say('the whole '));
      emit('message', say('answer'));
      await new RunStore(db).endWithAnswer(
        row.run_id,
        { status: 'interrupted', partialText: 'the whole ', lastEventId: 1_000_001 },
        {
          id: row.request_id,
          sessionId: row.session_id,
          type: 'ai',
          content: 'the whole ',
          runStatus: 'interrupted',
        },
      );
      return { status: 'finished', text: 'the whole answer', reasoning: '', toolCalls: [] };
    });
    const { runId, sessionId, requestId } = await startTurn(m);
    const events = await follow(m, runId);
    expect(events.map((e) => e.event)).toEqual(['run', 'message', 'message', 'done']);
    expect(events.at(-1)?.data).toEqual({ status: 'interrupted', partialText: 'the whole ' });
    expect(await runs.get(runId)).toMatchObject({ status: 'interrupted', partial_text: 'the whole ' });
    expect(await answerOf(sessionId, requestId)).toMatchObject({
      content: 'the whole ',
      runStatus: 'interrupted',
    });
    expect(logs.filter((l) => l.runId === runId).map((l) => l.msg)).toContain(
      'runs: the run was ended elsewhere meanwhile; its done says that ending',
    );
    await m.close();
  });
});

describe('close()', () => {
  it('lets go of the runs in flight (recovering, lease expired) once each has stopped', async () => {
    let stopped = false;
    const { m, runs } = harness(async ({ emit, signal }) => {
      emit('message', say('halfway'));
      await aborted(signal);
      await sleep(100);
      stopped = true;
      return { status: 'aborted', text: 'halfway', reasoning: '', toolCalls: [] };
    });
    const { runId } = await startTurn(m);
    await sleep(50);
    await m.close();
    expect(stopped).toBe(true);
    const row = await runs.get(runId);
    expect(row).toMatchObject({ status: 'recovering', partial_text: 'halfway' });
    expect(row?.lease_expires_at?.getTime()).toBe(0);
  });
});

describe('resuming a run another instance left', () => {
  it('without its events (no shared log): `run` resumed with partialLength 0, then its text again as one message', async () => {
    const sessionId = await newSession();
    await insertOrphanRun(db, {
      runId: 'run_orphan',
      requestId: 'req-orphan',
      sessionId,
      userDid: USER,
      question: 'tell me',
      partialText: 'once upon ',
      lastEventId: 4,
    });
    let continued: string | undefined;
    const { m } = harness(
      ({ continueFrom }) => {
        continued = continueFrom;
        return Promise.reject(new Error('the model broke again'));
      },
      { exclusiveDatabase: true },
    );
    await m.start();
    const events = await follow(m, 'run_orphan');
    expect(continued).toBe('once upon ');
    expect(events.map((e) => e.event)).toEqual(['run', 'message', 'error', 'done']);
    expect(events[0]?.data).toMatchObject({ runId: 'run_orphan', resumed: true, partialLength: 0 });
    expect(events[1]?.data).toMatchObject({ content: 'once upon ' });
    expect(events.at(-1)?.data).toEqual({ status: 'failed', partialText: 'once upon ' });
    await m.close();
  });

  it('one that had started a tool: ended interrupted, its answer kept as it was (no reasoning, no tool calls)', async () => {
    const sessionId = await newSession();
    await insertOrphanRun(db, {
      runId: 'run_tooled',
      requestId: 'req-tooled',
      sessionId,
      userDid: USER,
      question: 'do it',
      partialText: 'doing ',
      toolsStarted: true,
    });
    const { m, runs } = harness(() => Promise.reject(new Error('must not run')), { exclusiveDatabase: true });
    await m.start();
    expect((await follow(m, 'run_tooled')).at(-1)?.data).toEqual({
      status: 'interrupted',
      partialText: 'doing ',
    });
    expect((await runs.get('run_tooled'))?.status).toBe('interrupted');
    const answer = await answerOf(sessionId, 'req-tooled');
    expect(answer).toMatchObject({ content: 'doing ', runStatus: 'interrupted' });
    expect(answer).not.toHaveProperty('reasoning');
    expect(answer).not.toHaveProperty('toolCalls');
    await m.close();
  });
});
