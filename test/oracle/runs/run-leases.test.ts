import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { RunEndStatus } from '../../../contracts/events.js';
import { ActiveRun, type RunOutlets } from '../../../server/oracle/runs/active-run.js';
import type { RunEventRecord } from '../../../server/oracle/runs/event-log.js';
import { createMemoryRunEventLog } from '../../../server/oracle/runs/memory-event-log.js';
import {
  renewEveryMs,
  RunRecovery,
  sweepEveryMs,
  type LeaseOptions,
  type RecoveryHost,
} from '../../../server/oracle/runs/run-recovery.js';
import type { TurnOutcome } from '../../../server/oracle/runs/turn.js';
import { type RunStore } from '../../../server/oracle/store/runs.js';
import { runningRow, type RunCheckpoint, type RunRow } from '../../../server/oracle/store/run-rows.js';
import { VirtualClock } from '../../helpers/virtual-clock.js';

// The lease timers and what recovery does with the runs it claims (run-recovery.ts, steps 1, 2 and 4 to 7), on
// a virtual clock and a run store that records its calls: every timer is fired by the test, never by time.

const INSTANCE = 'this-instance';
const LEASE_MS = 3000;

/** The calls recovery makes of the run store, answered from `claimable`. */
class RecordingRunStore {
  claimable: RunRow[] = [];
  claims: { limit: number; all: boolean }[] = [];
  renewals: string[][] = [];
  checkpoints: RunCheckpoint[][] = [];
  checkpointError: Error | undefined = undefined;
  markedRunning: string[] = [];

  claimOrphans(owner: string, leaseMs: number, limit: number, all = false): Promise<RunRow[]> {
    expect([owner, leaseMs]).toEqual([INSTANCE, LEASE_MS]);
    this.claims.push({ limit, all });
    return Promise.resolve(this.claimable.splice(0, limit));
  }
  renew(owner: string, runIds: string[], leaseMs: number): Promise<void> {
    expect([owner, leaseMs]).toEqual([INSTANCE, LEASE_MS]);
    this.renewals.push(runIds);
    return Promise.resolve();
  }
  checkpointMany(owner: string, states: RunCheckpoint[]): Promise<void> {
    expect(owner).toBe(INSTANCE);
    if (this.checkpointError) return Promise.reject(this.checkpointError);
    this.checkpoints.push(states);
    return Promise.resolve();
  }
  markRunning(runId: string, owner: string): Promise<void> {
    expect(owner).toBe(INSTANCE);
    this.markedRunning.push(runId);
    return Promise.resolve();
  }
}

/** A run some instance started, as the database holds it after `changes`. */
function row(runId: string, changes: Partial<RunRow> = {}): RunRow {
  const created = {
    runId,
    sessionId: `s-${runId}`,
    userDid: 'did:key:z6MkLeases',
    requestId: `req-${runId}`,
    owner: 'a-dead-instance',
    leaseMs: LEASE_MS,
    request: { message: 'go on' },
  };
  return { ...runningRow(created, new Date(0)), ...changes };
}

/** Everything a test needs to drive a RunRecovery by hand (resolve the microtasks a timer started with `settle`). */
function setup(options: Partial<LeaseOptions> = {}) {
  const clock = new VirtualClock();
  const store = new RecordingRunStore();
  const log = createMemoryRunEventLog({ maxAgeSeconds: 60 });
  const logs: { msg: string; err?: { message?: string } }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  const out: RunOutlets = { instanceId: INSTANCE, runs: store as unknown as RunStore, log, logger };
  const active = new Map<string, ActiveRun>();
  const executed: { runId: string; continueFrom: string | undefined }[] = [];
  const finished: { runId: string; status: RunEndStatus; outcome: TurnOutcome }[] = [];
  const resumed: string[] = [];
  const host: RecoveryHost = {
    active,
    adopt: (claimed, partialText) => {
      const run = new ActiveRun(claimed, partialText, out);
      active.set(claimed.run_id, run);
      return run;
    },
    execute: (run, _request, continueFrom) => executed.push({ runId: run.row.run_id, continueFrom }),
    finish: (run, status, outcome) => {
      finished.push({ runId: run.row.run_id, status, outcome });
      return Promise.resolve();
    },
  };
  const recovery = new RunRecovery(
    {
      ...out,
      leaseMs: LEASE_MS,
      checkpointMs: 2000,
      exclusiveDatabase: false,
      onRunResumed: (r) => resumed.push(r.run_id),
      clock,
      ...options,
    },
    host,
  );
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const eventsOf = (runId: string): Promise<RunEventRecord[]> => log.read(runId, 0);
  return { clock, store, logs, out, active, host, executed, finished, resumed, recovery, settle, eventsOf };
}

describe('the lease timers (steps 1, 2 and 4)', () => {
  it('on a shared database: renewals every third of a lease, checkpoints every checkpointMs, sweeps every half lease', async () => {
    const { clock, store, recovery } = setup();
    await recovery.start();
    expect(clock.periods()).toEqual([1000, 1500, 2000]);
    // The first sweep, at start: only runs whose lease ran out, 20 at most.
    expect(store.claims).toEqual([{ limit: 20, all: false }]);
    recovery.stop();
  });

  it('short leases: renewed at most every 250 ms, swept at most every 500 ms', () => {
    expect([renewEveryMs(300), sweepEveryMs(300)]).toEqual([250, 500]);
    expect([renewEveryMs(30_000), sweepEveryMs(30_000)]).toEqual([10_000, 15_000]);
  });

  it('with a database of its own: no sweep; every run in flight is claimed once, at start', async () => {
    const { clock, store, recovery } = setup({ exclusiveDatabase: true });
    await recovery.start();
    expect(clock.periods()).toEqual([1000, 2000]);
    expect(store.claims).toEqual([{ limit: 20, all: true }]);
    recovery.stop();
  });

  it('a renewal renews the leases of the runs executed here, each tick', async () => {
    const { clock, store, recovery, host, settle } = setup();
    await recovery.start();
    host.adopt(row('run_a'), '');
    host.adopt(row('run_b'), '');
    clock.tick(1000);
    await settle();
    expect(store.renewals).toEqual([['run_a', 'run_b']]);
    clock.tick(1000);
    await settle();
    expect(store.renewals).toHaveLength(2);
    recovery.stop();
  });

  it('a checkpoint saves the runs that moved since the last one, in one statement', async () => {
    const { clock, store, recovery, host, settle } = setup();
    await recovery.start();
    const moved = host.adopt(row('run_moved'), '');
    host.adopt(row('run_still'), '');
    moved.emit('message', { content: 'words', timestamp: new Date(0).toISOString() });
    clock.tick(2000);
    await settle();
    expect(store.checkpoints).toEqual([
      [{ runId: 'run_moved', partialText: 'words', lastEventId: moved.lastId, toolsStarted: false }],
    ]);
    expect(moved.dirty).toBe(false);
    // Nothing moved since: no statement.
    clock.tick(2000);
    await settle();
    expect(store.checkpoints).toHaveLength(1);
    recovery.stop();
  });

  it('a checkpoint the database refuses is logged, and the run saved at the next tick', async () => {
    const { clock, store, recovery, host, logs, settle } = setup();
    await recovery.start();
    const run = host.adopt(row('run_a'), '');
    run.emit('message', { content: 'kept', timestamp: new Date(0).toISOString() });
    store.checkpointError = new Error('database error 08006');
    clock.tick(2000);
    await settle();
    expect(run.dirty).toBe(true);
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: 'runs: background task failed',
        err: expect.objectContaining({ message: 'database error 08006' }),
      }),
    );
    store.checkpointError = undefined;
    clock.tick(2000);
    await settle();
    expect(store.checkpoints.map((batch) => batch.map((c) => c.partialText))).toEqual([['kept']]);
    recovery.stop();
  });

  it('a sweep each half lease; stop() ends every timer and claims nothing more', async () => {
    const { clock, store, recovery, settle } = setup();
    await recovery.start();
    // Each sweep ends before the next one is due (one runs at a time).
    clock.tick(1500);
    await settle();
    clock.tick(1500);
    await settle();
    expect(store.claims).toHaveLength(3);
    recovery.stop();
    expect(clock.periods()).toEqual([]);
    await recovery.recover(true);
    expect(store.claims).toHaveLength(3);
  });
});

describe('a claimed run (steps 5 to 7)', () => {
  it('one this instance executes (its renewals came late) goes on here: marked running, not resumed', async () => {
    const { store, recovery, host, executed, finished } = setup();
    host.adopt(row('run_here'), '');
    store.claimable = [row('run_here')];
    await recovery.recover(false);
    expect(store.markedRunning).toEqual(['run_here']);
    expect([executed, finished]).toEqual([[], []]);
  });

  it('a run a sweep is still taking in is renewed meanwhile and not resumed again by the next sweep (regression: two sweeps resumed one run twice)', async () => {
    let release = (): void => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    // Taking the run in waits on the database (here: reading its approvals) for longer than a sweep period.
    const { clock, store, recovery, executed, resumed, settle } = setup({
      approvalsOf: () => slow.then(() => []),
    });
    await recovery.start();
    const claimed = row('run_slow', { attempt: 2 });
    store.claimable = [claimed];
    clock.tick(1500);
    await settle();
    expect(store.claims).toHaveLength(2);
    const renewedBefore = store.renewals.length;
    // The store offers it again, as the database does once a lease nobody renewed has run out.
    store.claimable = [{ ...claimed, attempt: 3 }];
    clock.tick(3000);
    await settle();
    const renewals = store.renewals.slice(renewedBefore);
    expect(renewals).toHaveLength(3);
    expect(renewals.every((ids) => ids.includes('run_slow'))).toBe(true);
    expect(store.claims).toHaveLength(2);
    release();
    await settle();
    await settle();
    expect(executed.map((e) => e.runId)).toEqual(['run_slow']);
    expect(resumed).toEqual(['run_slow']);
    recovery.stop();
  });

  it('one that had started a tool is ended interrupted with its answer so far, never executed again', async () => {
    const { store, recovery, executed, finished } = setup();
    store.claimable = [row('run_tool', { tools_started: true, partial_text: 'doing ', attempt: 2 })];
    await recovery.recover(false);
    expect(finished).toEqual([
      {
        runId: 'run_tool',
        status: 'interrupted',
        outcome: { status: 'aborted', text: 'doing ', reasoning: '', toolCalls: [] },
      },
    ]);
    expect(executed).toEqual([]);
  });

  it('one whose events are gone: `run` resumed with partialLength 0, its answer again whole, then executed from it', async () => {
    const { store, recovery, executed, resumed, eventsOf } = setup();
    store.claimable = [row('run_lost', { partial_text: 'once upon ', attempt: 2 })];
    await recovery.recover(false);
    const events = await eventsOf('run_lost');
    expect(events.map((e) => [e.id, e.event])).toEqual([
      [1_000_001, 'run'],
      [1_000_002, 'message'],
    ]);
    expect(events[0]?.data).toMatchObject({ runId: 'run_lost', resumed: true, partialLength: 0 });
    expect(events[1]?.data).toMatchObject({ content: 'once upon ' });
    expect(store.markedRunning).toEqual(['run_lost']);
    expect(resumed).toEqual(['run_lost']);
    expect(executed).toEqual([{ runId: 'run_lost', continueFrom: 'once upon ' }]);
  });

  it('one whose events are all in the log: `run` resumed with their length, no text again', async () => {
    const { store, recovery, out, executed, eventsOf } = setup();
    const left = row('run_logged', { partial_text: 'once ', attempt: 1 });
    const timestamp = new Date(0).toISOString();
    await out.log.append('run_logged', {
      id: 1,
      event: 'run',
      data: { runId: 'run_logged', requestId: 'r' },
    });
    await out.log.append('run_logged', {
      id: 2,
      event: 'message',
      data: { content: 'once upon ', timestamp },
    });
    store.claimable = [{ ...left, attempt: 2 }];
    await recovery.recover(false);
    const events = await eventsOf('run_logged');
    expect(events.slice(2).map((e) => e.event)).toEqual(['run']);
    expect(events[2]?.data).toMatchObject({ resumed: true, partialLength: 'once upon '.length });
    expect(executed).toEqual([{ runId: 'run_logged', continueFrom: 'once upon ' }]);
  });
});
