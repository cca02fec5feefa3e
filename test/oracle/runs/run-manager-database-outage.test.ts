import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger.js';
import { createLocalControlBus } from '../../../server/oracle/runs/control-bus.js';
import type { RunEventLog, RunEventRecord } from '../../../server/oracle/runs/event-log.js';
import { createMemoryRunEventLog } from '../../../server/oracle/runs/memory-event-log.js';
import { RunManager } from '../../../server/oracle/runs/run-manager.js';
import type { RunExecutor } from '../../../server/oracle/runs/turn.js';
import { MessageStore } from '../../../server/oracle/store/messages.js';
import { RunStore } from '../../../server/oracle/store/runs.js';
import { SessionStore } from '../../../server/oracle/store/sessions.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';

/**
 * Defects the fault suite (npm run test:faults, agent phases) found with PostgreSQL paused or stopped under
 * load, and with Redis subscriptions down, reproduced on the real run manager and stores with the database's
 * answers failed on purpose.
 */

const ORACLE = 'did:key:z6MkfaultsOracle';
const USER = 'did:key:z6MkfaultsUser';

/** What pg answers while PostgreSQL is stopped. */
const down = (): Error =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** The real run store, with writes failed on purpose while `down` is set. */
class OutageRunStore extends RunStore {
  failEnds = 0;
  failCreates = 0;
  failCheckpoints = false;
  override async createWithQuestion(
    ...args: Parameters<RunStore['createWithQuestion']>
  ): ReturnType<RunStore['createWithQuestion']> {
    if (this.failCreates > 0) {
      this.failCreates--;
      throw Object.assign(new Error('timeout exceeded when trying to connect'), { code: 'ETIMEDOUT' });
    }
    return super.createWithQuestion(...args);
  }
  override async endWithAnswer(...args: Parameters<RunStore['endWithAnswer']>): Promise<boolean> {
    if (this.failEnds > 0) {
      this.failEnds--;
      throw down();
    }
    return super.endWithAnswer(...args);
  }
  override async checkpoint(...args: Parameters<RunStore['checkpoint']>): Promise<void> {
    if (this.failCheckpoints) throw down();
    return super.checkpoint(...args);
  }
}

let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
let db: TestDb;
beforeEach(async () => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
  db = await openTestDb();
});
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await db.close();
});

function manager(
  runs: RunStore,
  execute: RunExecutor,
  log: RunEventLog = createMemoryRunEventLog({ maxAgeSeconds: 60 }),
) {
  return new RunManager({
    runs,
    messages: new MessageStore(db.kysely),
    sessions: new SessionStore(db, ORACLE),
    log,
    bus: createLocalControlBus(),
    execute,
    logger: createLogger('silent'),
    leaseMs: 3000,
    retentionSeconds: 60,
    exclusiveDatabase: false,
    checkpointMs: 100,
  });
}

async function startTurn(m: RunManager): Promise<{ runId: string; sessionId: string; requestId: string }> {
  const session = await new SessionStore(db, ORACLE).create(USER, {});
  const requestId = `req-${session.session_id}`;
  const { runId } = await m.startRun({
    sessionId: session.session_id,
    userDid: USER,
    requestId,
    request: { message: 'hello' },
    userMessage: { id: `q-${session.session_id}` },
  });
  return { runId, sessionId: session.session_id, requestId };
}

async function follow(m: RunManager, runId: string, after = 0): Promise<RunEventRecord[]> {
  const seen: RunEventRecord[] = [];
  await m.follow(runId, after, (r) => seen.push(r), new AbortController().signal);
  return seen;
}

describe('the database down while a run works', () => {
  it('a tool call while the database is down is not an unhandled rejection (its checkpoint fails)', async () => {
    const runs = new OutageRunStore(db);
    const m = manager(runs, async ({ emit, row }) => {
      runs.failCheckpoints = true;
      emit('tool_call', {
        requestId: row.request_id,
        sessionId: row.session_id,
        toolCallId: 'call_1',
        eventId: 'call_1',
        toolName: 'add_numbers',
        args: {},
        status: 'isRunning',
      });
      await sleep(50);
      runs.failCheckpoints = false;
      // The database is back: the next checkpoint (every 100 ms here) saves it.
      await sleep(300);
      emit('message', { content: 'ok', timestamp: new Date().toISOString() });
      return { status: 'finished', text: 'ok', reasoning: '', toolCalls: [] };
    });
    await m.start();
    try {
      const { runId } = await startTurn(m);
      const events = await follow(m, runId);
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      await sleep(100);
      expect(unhandled).toEqual([]);
      // Saved once the database answered again (the next checkpoint).
      expect((await runs.get(runId))?.tools_started).toBe(true);
    } finally {
      await m.close();
    }
  });

  it('a run whose end cannot be recorded while the database is down records it once it is back, then says done', async () => {
    const runs = new OutageRunStore(db);
    const m = manager(runs, ({ emit }) => {
      emit('message', { content: 'the answer', timestamp: new Date().toISOString() });
      // Down for four attempts (about a second) when the run ends.
      runs.failEnds = 4;
      return Promise.resolve({ status: 'finished', text: 'the answer', reasoning: '', toolCalls: [] });
    });
    await m.start();
    try {
      const { runId, sessionId, requestId } = await startTurn(m);
      const events = await follow(m, runId);
      expect(events.map((e) => e.event)).toEqual(['run', 'message', 'done']);
      expect(events.at(-1)).toMatchObject({ data: { status: 'finished' } });
      expect(runs.failEnds).toBe(0);
      expect((await runs.get(runId))?.status).toBe('finished');
      const answer = (await new MessageStore(db.kysely).all(sessionId)).find((x) => x.id === requestId);
      expect(answer).toMatchObject({ type: 'ai', content: 'the answer' });
    } finally {
      await m.close();
    }
  });
});

describe('a burst: no database connection for a moment when a turn starts', () => {
  it('a run whose question cannot be stored at once is stored a moment later and runs (not failed)', async () => {
    const runs = new OutageRunStore(db);
    runs.failCreates = 3;
    const m = manager(runs, ({ emit }) => {
      emit('message', { content: 'answered', timestamp: new Date().toISOString() });
      return Promise.resolve({ status: 'finished', text: 'answered', reasoning: '', toolCalls: [] });
    });
    await m.start();
    try {
      const { runId, sessionId, requestId } = await startTurn(m);
      const events = await follow(m, runId);
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      expect(runs.failCreates).toBe(0);
      expect((await runs.get(runId))?.status).toBe('finished');
      const thread = await new MessageStore(db.kysely).all(sessionId);
      expect(thread.map((x) => [x.type, x.content])).toEqual([
        ['human', 'hello'],
        ['ai', 'answered'],
      ]);
      expect(thread[1]?.id).toBe(requestId);
    } finally {
      await m.close();
    }
  });
});

describe('a follower that missed live events', () => {
  it('reads the events it did not hear from the log (a subscription that was down), each once and in order', async () => {
    const memory = createMemoryRunEventLog({ maxAgeSeconds: 60 });
    // A shared log whose live delivery to followers lost events 3 and 4 (stored, never heard).
    const lossy: RunEventLog = {
      append: (runId, r) => memory.append(runId, r),
      read: (runId, after) => memory.read(runId, after),
      readStarted: (runId, after) => memory.read(runId, after),
      retain: (runId, s) => memory.retain(runId, s),
      unstored: () => 0,
      close: () => memory.close(),
      subscribe: (runId, listener) =>
        memory.subscribe(runId, (r) => {
          if (r.id === 3 || r.id === 4) return;
          listener(r);
        }),
    };
    const runs = new RunStore(db);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const m = manager(
      runs,
      async ({ emit }) => {
        await gate;
        for (const w of ['one ', 'two ', 'three ', 'four ', 'five '])
          emit('message', { content: w, timestamp: new Date().toISOString() });
        return { status: 'finished', text: 'one two three four five ', reasoning: '', toolCalls: [] };
      },
      lossy,
    );
    await m.start();
    try {
      const { runId } = await startTurn(m);
      const following = follow(m, runId);
      await sleep(50);
      release();
      const events = await following;
      expect(events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(
        events
          .filter((e) => e.event === 'message')
          .map((e) => (e.data as { content: string }).content)
          .join(''),
      ).toBe('one two three four five ');
    } finally {
      await m.close();
    }
  });
});
