import { sql } from 'kysely';
import type { Db } from '../../../server/db/index.js';
import { describe, expect, it } from 'vitest';
import { Admission, sampleLoopDelay, type LoadSources } from '../../../server/oracle/limits/admission.js';
import { openTestDb, TEST_DATABASE_URL } from '../../helpers/db.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp } from '../../helpers/oracle/oracle-app.js';

// Admission before work (issue 40 item 3): over a budget, a new turn answers 503 `unavailable` with
// Retry-After before it reads or writes anything; under it, turns go on as usual.

const BUDGETS = {
  maxDbWaiting: 5,
  maxDbWaitMs: 250,
  maxUnstoredEvents: 100,
  maxLoopDelayMs: 200,
  retryAfterSeconds: 3,
};

function sources(
  over: Partial<{ waiting: number; waited: number; unstored: number; delay: number }> = {},
): LoadSources {
  return {
    pool: () => ({ inUse: 10, max: 10, waiting: over.waiting ?? 0, oldestWaitMs: over.waited ?? 0 }),
    unstoredEvents: () => over.unstored ?? 0,
    loopDelayMs: () => over.delay ?? 0,
  };
}

describe('Admission', () => {
  it('admits at its budgets and refuses one past each, naming which', () => {
    const at = { waiting: 5, waited: 250, unstored: 100, delay: 200 };
    expect(new Admission(sources(at), BUDGETS).overBudget()).toBe(undefined);
    expect(new Admission(sources({ waiting: 6 }), BUDGETS).overBudget()).toBe('database');
    // A caller that has waited too long for a connection, however few wait.
    expect(new Admission(sources({ waiting: 1, waited: 251 }), BUDGETS).overBudget()).toBe('database');
    expect(new Admission(sources({ unstored: 101 }), BUDGETS).overBudget()).toBe('redis');
    expect(new Admission(sources({ delay: 201 }), BUDGETS).overBudget()).toBe('event_loop');
  });

  it('a budget of 0 is no check; no pool (PGlite) is never over', () => {
    const off = { ...BUDGETS, maxDbWaiting: 0, maxDbWaitMs: 0, maxUnstoredEvents: 0, maxLoopDelayMs: 0 };
    const far = { waiting: 1e6, waited: 1e6, unstored: 1e9, delay: 1e5 };
    expect(new Admission(sources(far), off).overBudget()).toBe(undefined);
    expect(new Admission({ ...sources(), pool: () => undefined }, BUDGETS).overBudget()).toBe(undefined);
  });

  it('refuses with 503 unavailable and its Retry-After', () => {
    expect(() => new Admission(sources({ delay: 1000 }), BUDGETS).admit()).toThrow(
      expect.objectContaining({ status: 503, code: 'unavailable', extra: { retryAfter: 3 } }),
    );
  });

  it("samples the event loop's delay: a blocked loop shows, an idle one does not", async () => {
    // A 500 ms block against an idle loop's delay, which on a loaded machine (CI's two cores) can reach a
    // hundred milliseconds or more of scheduling: half the block apart, so neither reading passes for the other.
    const BLOCK_MS = 500;
    const sampler = sampleLoopDelay(100);
    try {
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(sampler.delayMs()).toBeLessThan(BLOCK_MS / 2);
      const until = Date.now() + BLOCK_MS;
      while (Date.now() < until) {
        // A handler that holds the loop.
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(sampler.delayMs()).toBeGreaterThan(BLOCK_MS * 0.8);
      // Windows later, it is gone.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(sampler.delayMs()).toBeLessThan(BLOCK_MS / 2);
    } finally {
      sampler.close();
    }
  });
});

describe.runIf(TEST_DATABASE_URL)('a turn while the database pool is saturated', () => {
  it.each([
    ['more callers wait than ORACLE_ADMIT_MAX_DB_WAITING', { ORACLE_ADMIT_MAX_DB_WAITING: '1' }],
    [
      'a caller has waited longer than ORACLE_ADMIT_MAX_DB_WAIT_MS',
      { ORACLE_ADMIT_MAX_DB_WAITING: '0', ORACLE_ADMIT_MAX_DB_WAIT_MS: '100' },
    ],
  ])(
    '%s: answers 503 unavailable with Retry-After before reading or writing anything; the next turn runs',
    async (_, budget) => {
      await using app = await startOracleApp({ env: { ...budget, ORACLE_RETRY_AFTER_S: '4' } });
      const api = oracleApi(app.url, await newUser(app.oracleDid));
      const session = await api.createSession();
      const db = app.ctx.db;
      // Every connection of the test pool (4) busy for a second, and two callers waiting behind them (they give
      // up after the pool's acquire timeout: the test's own load, not the turn).
      const hold = Array.from({ length: 6 }, () =>
        sql`select pg_sleep(1)`.execute(db.kysely).catch(() => undefined),
      );
      await expect.poll(() => db.load()?.waiting ?? 0).toBeGreaterThan(1);
      await expect.poll(() => db.load()?.oldestWaitMs ?? 0).toBeGreaterThan(100);
      const refused = await api.call('POST', `/messages/${session.sessionId}`, { message: 'hello' });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('4');
      expect(refused.body).toMatchObject({
        code: 'unavailable',
        message: 'The oracle is at capacity; try again shortly.',
        retryAfter: 4,
      });
      await Promise.all(hold);
      // Nothing was written: no question, no run.
      const history = await api.call('GET', `/sessions/${session.sessionId}/messages`);
      expect(history.body).toMatchObject({ messages: [] });
      expect((await api.call('GET', `/sessions/${session.sessionId}/run`)).status).toBe(204);
      const after = await api.stream(session.sessionId, { message: 'hello' });
      expect(after.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    },
  );
});

describe('a turn that started', () => {
  it('finishes when its first reads meet a busy pool (the acquire timed out): they are tried again, it does not fail', async () => {
    // The first three reads of the preferences (one of the turn's first reads, in every deployment: a plugin's
    // state) fail as a pool whose every connection is taken fails them.
    let failures = 3;
    await using db = await openTestDb();
    const busyPool: Db['prepared'] = (name, text, values) => {
      if (failures > 0 && name === 'oracle-user-preferences') {
        failures--;
        return Promise.reject(new Error('timeout exceeded when trying to connect'));
      }
      return db.prepared(name, text, values);
    };
    await using app = await startOracleApp({ db: { ...db, prepared: busyPool } });
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const session = await api.createSession();
    const turn = await api.stream(session.sessionId, { message: 'hello' });
    expect(failures).toBe(0);
    expect(turn.events[0]).toMatchObject({ event: 'run' });
    expect(turn.events.some((e) => e.event === 'error')).toBe(false);
    expect(turn.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
  });
});
