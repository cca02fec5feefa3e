// Input that never breaks a turn (issue 36, finding 4): what a model sends a server tool, or answers itself, can
// hold what a store refuses (a NUL, a lone surrogate). Before the fix a NUL in a server tool's arguments left the
// turn unanswered and its run `running` for ever on embedded defaults (its followers hung), and in production
// ended it after 16.7 s with the raw database error in the answer. Now the tool ends as a tool error, the turn
// goes on and ends, every follower gets `done`, and no database error text reaches an answer.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { MessageStore } from '../../server/oracle/store/messages.js';
import { RunStore } from '../../server/oracle/store/runs.js';
import { SessionStore } from '../../server/oracle/store/sessions.js';
import { openTestDb } from '../helpers/db.js';
import { openTestRedis, TEST_REDIS_URL } from '../helpers/redis.js';
import { newUser, oracleApi } from '../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../helpers/oracle/oracle-app.js';
import { answerText } from '../helpers/oracle/sse.js';

/** Words of PostgreSQL's and PGlite's refusals: none may reach an answer. */
const DATABASE_WORDS =
  /invalid byte sequence|unsupported Unicode escape|0x00|cannot be converted to text|invalid input syntax|22P05|22021|PGlite|postgres/i;

describe(`a turn whose tool arguments or answer a store refuses (${TEST_REDIS_URL ? 'PostgreSQL + Redis' : 'embedded'})`, () => {
  let app: OracleApp;
  let redis: Redis | undefined;
  beforeAll(async () => {
    redis = TEST_REDIS_URL ? await openTestRedis() : undefined;
    app = await startOracleApp({ env: { ORACLE_FEATURES: 'memory' }, ...(redis ? { redis } : {}) });
  });
  afterAll(async () => {
    await app.close();
    redis?.disconnect();
  });

  // The message holds the JSON escape (six characters), which the request accepts; the model's arguments hold
  // the character itself once parsed.
  it.each([
    ['a NUL', 'set_user_preferences', '{"tone": "calm\\u0000kind"}'],
    ['a lone surrogate', 'set_user_preferences', '{"tone": "calm\\ud800kind"}'],
    ['a NUL', 'remember_fact', '{"fact": "I grow\\u0000maize"}'],
    ['a NUL in a key', 'remember_fact', '{"fact": "maize", "x\\u0000": 1}'],
  ])('%s in the arguments of %s: a tool error, and the turn ends', async (_what, tool, args) => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const session = await api.createSession();
    const started = performance.now();
    const { response, events } = await api.stream(session.sessionId, { message: `use ${tool} with ${args}` });
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5000);
    const calls = events
      .filter((e) => e.event === 'tool_call')
      .map((e) => e.data as { status: string; error?: string });
    expect(calls.at(-1)).toMatchObject({ status: 'error' });
    expect(JSON.stringify(calls)).not.toMatch(DATABASE_WORDS);
    expect(events.at(-1)).toMatchObject({ event: 'done' });
    expect(answerText(events)).not.toMatch(DATABASE_WORDS);

    // The run ended, a follower gets `done`, and the thread holds the turn.
    const runId = response.headers.get('x-run-id') ?? '';
    const run = await api.call('GET', `/sessions/${session.sessionId}/run`);
    expect(run.body).toMatchObject({ run: { runId, status: 'finished' } });
    const follower = await api.rejoin(runId, 0);
    expect(follower.events.at(-1)).toMatchObject({ event: 'done' });
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai']);
    expect(JSON.stringify(history.body)).not.toMatch(DATABASE_WORDS);

    // The next turn of the session runs as usual.
    const next = await api.stream(session.sessionId, { message: 'habari' });
    expect(next.events.at(-1)).toMatchObject({ event: 'done' });
  });

  it('the arguments the model sent are kept in the thread with U+FFFD for what no store accepts', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const session = await api.createSession();
    const { events } = await api.stream(session.sessionId, {
      message: 'use list_capabilities with {"note": "a\\u0000b\\udc00c"}',
    });
    expect(events.at(-1)).toMatchObject({ event: 'done' });
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages[1].toolCalls).toMatchObject([
      { name: 'list_capabilities', args: { note: 'a\ufffdb\ufffdc' }, status: 'error' },
    ]);
  });
});

// A model's answer can hold anything; the store writes what PostgreSQL accepts, and the thread cache agrees.
describe('a run whose answer holds a NUL or a lone surrogate', () => {
  it('ends with the answer stored, each such character as U+FFFD', async () => {
    await using db = await openTestDb();
    const session = await new SessionStore(db, 'did:key:oracle').create('did:key:user', {});
    const messages = new MessageStore(db.kysely, { exclusive: true });
    const runs = new RunStore(db, messages);
    const sessionId = session.session_id;
    const runId = `run_${randomUUID()}`;
    await runs.createWithQuestion(
      {
        runId,
        sessionId,
        userDid: 'did:key:user',
        requestId: 'req-1',
        owner: 'me',
        leaseMs: 30_000,
        request: { message: 'hi' },
      },
      { id: 'q-1', sessionId, type: 'human', content: 'hi' },
      'hi',
    );
    await runs.checkpoint(runId, 'me', { partialText: 'he\u0000', lastEventId: 2, toolsStarted: false });
    const ended = await runs.endWithAnswer(
      runId,
      { status: 'finished', partialText: 'he\u0000llo\ud800', lastEventId: 5, error: 'x\u0000' },
      {
        id: 'req-1',
        sessionId,
        type: 'ai',
        content: 'he\u0000llo\ud800',
        reasoning: 'r\udc00',
        toolCalls: [
          {
            id: 'c1',
            name: 't',
            kind: 'tool',
            args: { ['k\u0000']: ['v\u0000', '\\u0000 stays'] },
            status: 'done',
            output: 'o\u0000',
          },
        ],
        runStatus: 'finished',
      },
    );
    expect(ended).toBe(true);
    const stored = await new MessageStore(db.kysely).recent(sessionId, 51);
    expect(stored[1]).toMatchObject({
      content: 'he\ufffdllo\ufffd',
      toolCalls: [{ args: { ['k\ufffd']: ['v\ufffd', '\\u0000 stays'] }, output: 'o\ufffd' }],
    });
    expect((await messages.recent(sessionId, 51))[1]).toMatchObject({ content: 'he\ufffdllo\ufffd' });
    expect(await runs.get(runId)).toMatchObject({ status: 'finished', partial_text: 'he\ufffdllo\ufffd' });
  });
});
