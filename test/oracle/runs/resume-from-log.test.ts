import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { longText } from '../../../server/oracle/models/scripted-rules.js';
import { createRedisRunEventLog } from '../../../server/oracle/runs/redis-event-log.js';
import { openTestDb, TEST_DATABASE_URL, type TestDb } from '../../helpers/db.js';
import { deleteKeys, openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { newOracleKey, startOracleApp } from '../../helpers/oracle/oracle-app.js';
import { assembledText, type SseEvent } from '../../helpers/oracle/sse.js';

// Regression test for issue 26: a resumed run's `partialLength` must come from the text rebuilt from the
// shared event log, not from the last checkpoint in the database. An instance that crashes between two
// checkpoints leaves Redis holding more of the answer than PostgreSQL; the instance that resumes the run must
// continue after everything the clients already saw. Only on PostgreSQL + Redis (CI's production column):
// that is where a run outlives its instance with a shared log.

const LONG = 'write a long story';
const FULL = longText(400);
const WORDS = FULL.match(/\s*\S+/g) ?? [];
/** What the crashed instance had streamed (in the Redis log) and what it had checkpointed (in PostgreSQL). */
const STREAMED = WORDS.slice(0, 60).join('');
const CHECKPOINTED = WORDS.slice(0, 20).join('');

describe.runIf(TEST_REDIS_URL && TEST_DATABASE_URL)(
  'a run resumed from a Redis log longer than its checkpoint',
  () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await openTestDb();
    });
    afterAll(() => db.close());

    it('continues after the logged text: partialLength from the log, the client text equals the stored answer', async () => {
      expect(STREAMED.length).toBeGreaterThan(CHECKPOINTED.length);
      const redisPrefix = testRedisPrefix();
      const redis = await openTestRedis();
      try {
        await using app = await startOracleApp({
          db,
          signingKey: await newOracleKey(),
          redisPrefix,
          env: {
            REDIS_URL: TEST_REDIS_URL ?? '',
            SCRIPTED_MODEL_DELAY_MS: '1',
            ORACLE_RUN_LEASE_SECONDS: '5',
          },
        });
        const user = await newUser(app.oracleDid);
        const api = oracleApi(app.url, user);
        const session = await api.createSession();
        const runId = `run_${redisPrefix.replaceAll(':', '')}`;

        // What the crashed instance left in Redis: attempt 1's events (ids 1, 2, …), the answer up to STREAMED.
        const log = createRedisRunEventLog({
          redis,
          prefix: `${redisPrefix}oracle:`,
          maxAgeSeconds: 600,
          logger: pino({ level: 'silent' }),
        });
        const timestamp = new Date().toISOString();
        const attempt1: SseEvent[] = [
          { id: 1, event: 'run', data: { runId, requestId: 'req-crashed', sessionId: session.sessionId } },
          ...WORDS.slice(0, 60).map((content, i) => ({
            id: i + 2,
            event: 'message',
            data: { content, timestamp },
          })),
        ];
        for (const record of attempt1) await log.append(runId, record as never);

        // … and in PostgreSQL: the question, and the run with an older checkpoint and an expired lease.
        await db.kysely
          .insertInto('oracle_messages')
          .values({ id: 'q-crashed', session_id: session.sessionId, type: 'human', content: LONG })
          .execute();
        await db.kysely
          .insertInto('oracle_runs')
          .values({
            run_id: runId,
            session_id: session.sessionId,
            user_did: user.did,
            request_id: 'req-crashed',
            status: 'running',
            owner: 'a-crashed-instance',
            lease_expires_at: new Date(Date.now() - 1000),
            partial_text: CHECKPOINTED,
            last_event_id: 21,
            request: JSON.stringify({ message: LONG, model: 'scripted' }),
          })
          .execute();

        // The app sweeps expired leases (every 2.5 s with a 5 s lease: long enough that a busy machine never lets the resuming instance's own lease lapse) and resumes the run; a client that
        // re-joins from the start sees attempt 1's events, then the resumed attempt.
        const all = (await api.rejoin(runId, 0)).events;
        expect(all.slice(0, attempt1.length)).toEqual(attempt1);
        const resumed = all[attempt1.length];
        expect(resumed).toMatchObject({
          id: 1_000_001,
          event: 'run',
          data: { runId, resumed: true, partialLength: STREAMED.length },
        });
        expect(all.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
        // Only the words after STREAMED were streamed again.
        expect(
          all
            .slice(attempt1.length)
            .filter((e) => e.event === 'message')
            .map((e) => (e.data as { content: string }).content)
            .join(''),
        ).toBe(FULL.slice(STREAMED.length));

        const history = await api.call('GET', `/messages/${session.sessionId}`);
        const stored = history.body.messages.at(-1) as { id: string; type: string; content: string };
        expect(stored).toMatchObject({ id: 'req-crashed', type: 'ai' });
        expect(stored.content).toBe(FULL);
        expect(assembledText(all)).toBe(stored.content);
      } finally {
        await deleteKeys(redis, redisPrefix);
        redis.disconnect();
      }
    });
  },
);
