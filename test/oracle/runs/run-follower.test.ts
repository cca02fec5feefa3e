// Following a run (run-follower.ts) and what recovery reads of a claimed run (run-recovery.ts), driven directly
// over the in-process event log and a stand-in for the run store: replay then live events, each once and in
// order; a gap in live events filled from the log first; the end of a run that ended elsewhere; the answer so far
// and whether the log holds it; whether the run had started a tool.
import { describe, expect, it } from 'vitest';
import type { RunEventRecord } from '../../../server/oracle/runs/event-log.js';
import { createMemoryRunEventLog } from '../../../server/oracle/runs/memory-event-log.js';
import {
  endingOf,
  followRun,
  isFollowable,
  isGap,
  type FollowDeps,
} from '../../../server/oracle/runs/run-follower.js';
import { answerSoFar } from '../../../server/oracle/runs/run-recovery.js';
import type { RunStore } from '../../../server/oracle/store/runs.js';
import type { RunRow } from '../../../server/oracle/store/run-rows.js';

const ts = '2026-11-28T10:00:00.000Z';
const text = (id: number, content: string): RunEventRecord => ({
  id,
  event: 'message',
  data: { content, timestamp: ts },
});
const done = (id: number): RunEventRecord => ({ id, event: 'done', data: { status: 'finished' } });
const run = (id: number, extra: { resumed?: boolean; partialLength?: number } = {}): RunEventRecord => ({
  id,
  event: 'run',
  data: { runId: 'run_1', requestId: 'req_1', ...extra },
});

function row(patch: Partial<RunRow> = {}): RunRow {
  return {
    run_id: 'run_1',
    session_id: 'ses_1',
    user_did: 'did:key:user',
    request_id: 'req_1',
    status: 'running',
    attempt: 1,
    owner: 'elsewhere',
    lease_expires_at: null,
    partial_text: '',
    last_event_id: 0,
    tools_started: false,
    request: { message: 'hi' },
    error: null,
    created_at: new Date(),
    updated_at: new Date(),
    ended_at: null,
    ...patch,
  };
}

function deps(rows: Record<string, RunRow | undefined> = {}, local: string[] = []) {
  const log = createMemoryRunEventLog({ maxAgeSeconds: 60 });
  const asked: string[] = [];
  const runs = {
    get: (runId: string) => {
      asked.push(runId);
      return Promise.resolve(rows[runId]);
    },
  } as unknown as RunStore;
  const d: FollowDeps = { log, runs, isLocal: (runId) => local.includes(runId) };
  return { d, log, asked };
}

async function follow(d: FollowDeps, after: number, signal = new AbortController().signal) {
  const got: number[] = [];
  const started = Date.now();
  await followRun(d, 'run_1', after, (r) => got.push(r.id), signal);
  return { got, ms: Date.now() - started };
}

describe('isGap', () => {
  it('the next id, or the first id of an attempt, follows; anything else is a gap', () => {
    expect(isGap(3, text(4, 'x'))).toBe(false);
    expect(isGap(3, text(5, 'x'))).toBe(true);
    expect(isGap(3, text(3, 'x'))).toBe(true);
    expect(isGap(42, text(1_000_001, 'x'))).toBe(false);
    expect(isGap(1_000_001, text(1_000_002, 'x'))).toBe(false);
    expect(isGap(1_000_001, text(1_000_003, 'x'))).toBe(true);
    expect(isGap(5, text(2_000_001, 'x'))).toBe(false);
    expect(isGap(5, text(2_000_002, 'x'))).toBe(true);
  });
});

describe('followRun', () => {
  it('replays what is retained after `after`, then live events, each once, until done', async () => {
    const { d, log } = deps({}, ['run_1']);
    await log.append('run_1', run(1));
    await log.append('run_1', text(2, 'a'));
    await log.append('run_1', text(3, 'b'));
    const got: number[] = [];
    const following = followRun(d, 'run_1', 1, (r) => got.push(r.id), new AbortController().signal);
    await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual([2, 3]);
    await log.append('run_1', text(3, 'b again'));
    await log.append('run_1', text(4, 'c'));
    await log.append('run_1', done(5));
    await log.append('run_1', text(6, 'after done'));
    await following;
    expect(got).toEqual([2, 3, 4, 5]);
  });

  it('a live event past the next id: the missing ones are read from the log first, then it', async () => {
    const { d, log } = deps({}, ['run_1']);
    await log.append('run_1', text(1, 'a'));
    const got: number[] = [];
    const following = followRun(d, 'run_1', 0, (r) => got.push(r.id), new AbortController().signal);
    await new Promise((r) => setTimeout(r, 10));
    // Events 2 and 3 reach the log without their live copy (a subscription that was down), then 4 live.
    const records = [text(2, 'b'), text(3, 'c')];
    const read = d.log.read.bind(d.log);
    d.log.read = async (runId, after) =>
      [...(await read(runId, after)), ...records.filter((r) => r.id > after)].sort((x, y) => x.id - y.id);
    await log.append('run_1', text(4, 'd'));
    await log.append('run_1', done(5));
    await following;
    expect(got).toEqual([1, 2, 3, 4, 5]);
  });

  it('a run that ended elsewhere: nothing after its last id ends at once; an earlier `after` waits a second for its done', async () => {
    const ended = row({ status: 'finished', last_event_id: 7 });
    const { d, asked, log } = deps({ run_1: ended });
    const atEnd = await follow(d, 7);
    expect(atEnd.got).toEqual([]);
    expect(atEnd.ms).toBeLessThan(500);
    expect(asked).toEqual(['run_1']);
    // Its done reaches the log within the second: delivered once, the follower stops there.
    setTimeout(() => void log.append('run_1', done(7)), 200);
    const onItsWay = await follow(d, 3);
    expect(onItsWay.got).toEqual([7]);
    expect(onItsWay.ms).toBeLessThan(900);
  });

  it("a run whose done never reached the log (its instance died after recording the end): the row's ending, after a second", async () => {
    // Finished: `done` with the id the run gave it.
    const finished = deps({ run_1: row({ status: 'finished', last_event_id: 7 }) });
    await finished.log.append('run_1', run(1));
    await finished.log.append('run_1', text(6, 'last words'));
    const failedRow = row({
      status: 'failed',
      last_event_id: 9,
      partial_text: 'half an answ',
      error: 'The model did not answer.',
      ended_at: new Date('2026-11-28T10:00:05.000Z'),
    });
    const failed = deps({ run_1: failedRow });
    const pastError = deps({ run_1: failedRow });
    const records: RunEventRecord[] = [];
    const got: RunEventRecord[] = [];
    const tail: number[] = [];
    const never = new AbortController().signal;
    const started = Date.now();
    // The three followers wait their second side by side.
    await Promise.all([
      followRun(finished.d, 'run_1', 1, (r) => records.push(r), never),
      followRun(failed.d, 'run_1', 7, (r) => got.push(r), never),
      followRun(pastError.d, 'run_1', 8, (r) => tail.push(r.id), never),
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(records).toEqual([text(6, 'last words'), done(7)]);
    // Failed: `error` then `done` with the answer so far, as the run would have written them.
    expect(got).toEqual([
      {
        id: 8,
        event: 'error',
        data: {
          error: 'The model did not answer.',
          code: 'turn_failed',
          timestamp: '2026-11-28T10:00:05.000Z',
        },
      },
      { id: 9, event: 'done', data: { status: 'failed', partialText: 'half an answ' } },
    ]);
    // A client already past the error gets `done` alone.
    expect(tail).toEqual([9]);
    // Aborted, its error-less ending: `done` only; nothing for a run in flight.
    expect(endingOf(row({ status: 'aborted', last_event_id: 4, partial_text: 'so' }))).toEqual([
      { id: 4, event: 'done', data: { status: 'aborted', partialText: 'so' } },
    ]);
    expect(endingOf(row({ status: 'running' }))).toEqual([]);
  });

  it('a run the database does not know ends at once; one in flight elsewhere is followed until aborted', async () => {
    const unknown = deps({});
    expect((await follow(unknown.d, 0)).ms).toBeLessThan(500);
    const elsewhere = deps({ run_1: row({ status: 'running' }) });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const followed = await follow(elsewhere.d, 0, stop.signal);
    expect(followed.ms).toBeGreaterThanOrEqual(250);
    // Executed here: its done comes to the log, the database is not asked.
    const here = deps({}, ['run_1']);
    const stopHere = new AbortController();
    setTimeout(() => stopHere.abort(), 50);
    await follow(here.d, 0, stopHere.signal);
    expect(here.asked).toEqual([]);
  });

  it('live events heard while the log is still being read wait for it: each once, in order', async () => {
    const { d, log } = deps({}, ['run_1']);
    await log.append('run_1', run(1));
    await log.append('run_1', text(2, 'a'));
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const read = d.log.read.bind(d.log);
    d.log.read = async (runId, after) => {
      const records = await read(runId, after);
      await slow;
      return records;
    };
    const got: number[] = [];
    const following = followRun(d, 'run_1', 0, (r) => got.push(r.id), new AbortController().signal);
    await new Promise((r) => setTimeout(r, 10));
    await log.append('run_1', text(3, 'b'));
    release();
    await new Promise((r) => setTimeout(r, 10));
    await log.append('run_1', done(4));
    await following;
    expect(got).toEqual([1, 2, 3, 4]);
  });

  it('a log that lost some ids (Redis restarted) is replayed as it is, without waiting for them', async () => {
    const { d, log } = deps({}, ['run_1']);
    for (const r of [run(1), text(2, 'a'), text(5, 'e'), done(6)]) await log.append('run_1', r);
    const started = Date.now();
    expect((await follow(d, 0)).got).toEqual([1, 2, 5, 6]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('nothing after done, even in the same read', async () => {
    const { d, log } = deps({}, ['run_1']);
    for (const r of [run(1), done(2), text(3, 'late')]) await log.append('run_1', r);
    expect((await follow(d, 0)).got).toEqual([1, 2]);
  });

  it('a catch-up whose read fails is tried again', async () => {
    const { d, log } = deps({}, ['run_1']);
    await log.append('run_1', text(1, 'a'));
    const got: number[] = [];
    const following = followRun(d, 'run_1', 0, (r) => got.push(r.id), new AbortController().signal);
    await new Promise((r) => setTimeout(r, 10));
    const read = d.log.read.bind(d.log);
    let failures = 1;
    d.log.read = async (runId, after) => {
      if (failures-- > 0) throw new Error('redis down');
      return [...(await read(runId, after)), text(2, 'b')]
        .filter((r) => r.id > after)
        .sort((x, y) => x.id - y.id);
    };
    await log.append('run_1', text(3, 'c'));
    await log.append('run_1', done(4));
    await following;
    expect(got).toEqual([1, 2, 3, 4]);
    expect(failures).toBe(-1);
  });

  it('aborted while it subscribes: the subscription is let go', async () => {
    const { d } = deps({}, ['run_1']);
    let live = 0;
    let subscribed!: () => void;
    const slow = new Promise<void>((r) => (subscribed = r));
    const subscribe = d.log.subscribe.bind(d.log);
    d.log.subscribe = async (runId, listener) => {
      const off = await subscribe(runId, listener);
      live++;
      await slow;
      return () => {
        live--;
        off();
      };
    };
    const stop = new AbortController();
    const following = follow(d, 0, stop.signal);
    await new Promise((r) => setTimeout(r, 10));
    stop.abort();
    subscribed();
    await following;
    expect(live).toBe(0);
  });

  it('an aborted signal before it starts: nothing is read or written', async () => {
    const { d, log } = deps({}, ['run_1']);
    await log.append('run_1', text(1, 'a'));
    const stop = new AbortController();
    stop.abort();
    expect((await follow(d, 0, stop.signal)).got).toEqual([]);
  });
});

describe('isFollowable', () => {
  it('a run in flight always; an ended one while its events are retained', async () => {
    const { d, log } = deps();
    for (const status of ['queued', 'running', 'recovering'] as const)
      expect(await isFollowable(d, row({ status }))).toBe(true);
    expect(await isFollowable(d, row({ status: 'finished' }))).toBe(false);
    await log.append('run_1', done(1));
    expect(await isFollowable(d, row({ status: 'finished' }))).toBe(true);
  });
});

/** answerSoFar without the records it read (the tests below check what it makes of them). */
async function summaryOf(...args: Parameters<typeof answerSoFar>) {
  const { records: _records, ...summary } = await answerSoFar(...args);
  return summary;
}

describe('answerSoFar', () => {
  it('no events: the checkpoint, logged only when there is no text to lose', async () => {
    const { log } = deps();
    expect(await summaryOf(log, row({ partial_text: 'Hello' }))).toEqual({
      text: 'Hello',
      logged: false,
      calledTools: false,
    });
    expect(await summaryOf(log, row())).toEqual({ text: '', logged: true, calledTools: false });
  });

  it('rebuilt from the log (a resumed attempt cut back to its partialLength) when it holds at least the checkpoint', async () => {
    const { log } = deps();
    for (const r of [
      run(1),
      text(2, 'Hello'),
      text(3, ' wor'),
      run(1_000_001, { resumed: true, partialLength: 6 }),
      text(1_000_002, 'world'),
    ])
      await log.append('run_1', r);
    expect(await summaryOf(log, row({ partial_text: 'Hello' }))).toEqual({
      text: 'Hello world',
      logged: true,
      calledTools: false,
    });
    // A resumed attempt without partialLength keeps the text; a checkpoint longer than the log wins.
    expect(await summaryOf(log, row({ partial_text: 'Hello world, and more' }))).toEqual({
      text: 'Hello world, and more',
      logged: false,
      calledTools: false,
    });
    expect((await answerSoFar(log, row({ partial_text: 'Hello world' }))).logged).toBe(true);
  });

  it('a run event without partialLength keeps the text', async () => {
    const { log } = deps();
    for (const r of [text(1, 'abc'), run(2)]) await log.append('run_1', r);
    expect((await answerSoFar(log, row())).text).toBe('abc');
  });

  it('had started a tool: by the row, or by any tool, browser tool or action event in the log', async () => {
    expect((await answerSoFar(deps().log, row({ tools_started: true }))).calledTools).toBe(true);
    const call = { sessionId: 'ses_1', requestId: 'req_1', toolCallId: 't', toolName: 'x', args: {} };
    const events: RunEventRecord[] = [
      { id: 1, event: 'tool_call', data: { ...call, eventId: 't', status: 'isRunning' } },
      { id: 1, event: 'browser_tool_call', data: call },
      { id: 1, event: 'action_call', data: { ...call, status: 'isRunning' } },
      { id: 1, event: 'render_component', data: { ...call, eventId: 'c', componentName: 'C' } },
    ];
    const seen: boolean[] = [];
    for (const e of events) {
      const { log } = deps();
      await log.append('run_1', e);
      seen.push((await answerSoFar(log, row())).calledTools);
    }
    expect(seen).toEqual([true, true, true, false]);
  });

  it('a log that cannot be read counts as empty', async () => {
    const { log } = deps();
    log.read = () => Promise.reject(new Error('redis down'));
    expect(await summaryOf(log, row({ partial_text: 'kept' }))).toEqual({
      text: 'kept',
      logged: false,
      calledTools: false,
    });
  });
});
