import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { longText } from '../../../server/oracle/models/scripted-rules.js';
import { untilServing } from '../../helpers/child-server.js';
import { createThrowawayDatabase, openTestDb, type TestDb } from '../../helpers/db.js';
import { freePort } from '../../helpers/private-redis.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { newOracleKey, startOracleApp } from '../../helpers/oracle/oracle-app.js';
import { insertOrphanRun } from '../../helpers/oracle/orphan-run.js';
import { answerText, assembledText, readSse } from '../../helpers/oracle/sse.js';

const LONG = 'write a long story';
const FULL = longText(400);

describe.runIf(TEST_REDIS_URL)('re-join on another instance through Redis', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(() => db.close());

  it('a stream dropped on instance A is re-joined on instance B with nothing lost or repeated', async () => {
    const signingKey = await newOracleKey();
    const env = { REDIS_URL: TEST_REDIS_URL ?? '', SCRIPTED_MODEL_DELAY_MS: '3' };
    const redisPrefix = testRedisPrefix();
    await using a = await startOracleApp({ db, signingKey, env, redisPrefix });
    await using b = await startOracleApp({ db, signingKey, env, redisPrefix });
    expect(b.oracleDid).toBe(a.oracleDid);
    const user = await newUser(a.oracleDid);
    const onA = oracleApi(a.url, user);
    const onB = oracleApi(b.url, user);
    const session = await onA.createSession();
    const first = await onA.stream(session.sessionId, { message: LONG }, (_e, all) => all.length >= 25);
    const runId = first.response.headers.get('x-run-id') as string;
    const rest = await onB.rejoin(runId, first.events.at(-1)?.id as number);
    expect(rest.response.status).toBe(200);
    const all = [...first.events, ...rest.events];
    expect(all.map((e) => e.id)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    expect(all.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(answerText(all)).toBe(FULL);
    // B also knows how the run ended, and replays it whole.
    expect((await onB.call('GET', `/sessions/${session.sessionId}/run`)).body.run.status).toBe('finished');
    expect((await onB.rejoin(runId, 0)).events).toEqual(all);
  });

  it('an abort sent to instance B stops the run executing on instance A', async () => {
    const signingKey = await newOracleKey();
    const env = { REDIS_URL: TEST_REDIS_URL ?? '', SCRIPTED_MODEL_DELAY_MS: '3' };
    const redisPrefix = testRedisPrefix();
    await using a = await startOracleApp({ db, signingKey, env, redisPrefix });
    await using b = await startOracleApp({ db, signingKey, env, redisPrefix });
    const user = await newUser(a.oracleDid);
    const onA = oracleApi(a.url, user);
    const onB = oracleApi(b.url, user);
    const session = await onA.createSession();
    let abort: Promise<{ status: number; body: unknown }> | undefined;
    const { events } = await onA.stream(session.sessionId, { message: LONG }, (_e, all) => {
      if (all.length === 15 && !abort)
        abort = onB.call('POST', '/messages/abort', { sessionId: session.sessionId });
    });
    expect(await abort).toMatchObject({ status: 200, body: { success: true } });
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'aborted' } });
  });
});

describe('a restart mid-run', () => {
  it('a run let go at shutdown is resumed by the next instance; the client re-joins and gets the whole answer', async () => {
    await using db = await openTestDb();
    const signingKey = await newOracleKey();
    const env = { SCRIPTED_MODEL_DELAY_MS: '5', ORACLE_RUN_LEASE_SECONDS: '1' };
    const a = await startOracleApp({ db, signingKey, env });
    const user = await newUser(a.oracleDid);
    const session = await oracleApi(a.url, user).createSession();
    const first = await oracleApi(a.url, user).stream(
      session.sessionId,
      { message: LONG },
      (_e, all) => all.length >= 40,
    );
    const runId = first.response.headers.get('x-run-id') as string;
    await a.close();

    // The next instance streams the rest without pauses: the test waits for the end of the answer.
    await using b = await startOracleApp({ db, signingKey, env: { ...env, SCRIPTED_MODEL_DELAY_MS: '1' } });
    const onB = oracleApi(b.url, user);
    const rest = await onB.rejoin(runId, first.events.at(-1)?.id as number);
    expect(rest.response.status).toBe(200);
    const resumed = rest.events.find((e) => e.event === 'run');
    expect(resumed?.data).toMatchObject({ runId, resumed: true, partialLength: expect.any(Number) });
    expect(resumed?.id).toBeGreaterThan(first.events.at(-1)?.id as number);
    const all = [...first.events, ...rest.events];
    expect(assembledText(all)).toBe(FULL);
    expect(all.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const history = await onB.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages.at(-1)).toMatchObject({ type: 'ai', content: FULL });
  });

  it('a run whose instance died (lease expired) is claimed and resumed by another instance', async () => {
    await using db = await openTestDb();
    const signingKey = await newOracleKey();
    const env = { SCRIPTED_MODEL_DELAY_MS: '5', ORACLE_RUN_LEASE_SECONDS: '1' };
    await using a = await startOracleApp({ db, signingKey, env });
    const user = await newUser(a.oracleDid);
    const api = oracleApi(a.url, user);
    const session = await api.createSession();
    // What a dead instance leaves behind: the question, and a run in flight whose lease ran out.
    await insertOrphanRun(db, {
      runId: 'run_orphan',
      requestId: 'req-orphan',
      sessionId: session.sessionId,
      userDid: user.did,
      question: LONG,
      partialText: FULL.slice(0, 120),
    });
    // The embedded database claims everything at start; a shared PostgreSQL sweeps expired leases.
    await using b = await startOracleApp({ db, signingKey, env: { ...env, SCRIPTED_MODEL_DELAY_MS: '1' } });
    const rest = await oracleApi(b.url, user).rejoin('run_orphan', 0);
    // The dead instance's events are not in this instance's log: the answer so far comes again whole.
    expect(rest.events[0]).toMatchObject({ event: 'run', data: { resumed: true, partialLength: 0 } });
    expect(rest.events[1]).toMatchObject({ event: 'message', data: { content: FULL.slice(0, 120) } });
    expect(rest.events[0]?.id).toBe(1_000_001);
    expect(assembledText(rest.events)).toBe(FULL);
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages.at(-1)).toMatchObject({ id: 'req-orphan', type: 'ai', content: FULL });
  });
});

describe('a crash mid-run (SIGKILL)', () => {
  it('the restarted server resumes the run; re-joining gives the rest of the answer after the resumed marker', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'oracle-crash-'));
    await using database = await createThrowawayDatabase('oracle_crash');
    const port = await freePort();
    const signingKey = await newOracleKey();
    // The instance that crashes is a real server process (`kill -9` is what the test is about); the one
    // started after it is the same server in this process, on the same database.
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        PORT: String(port),
        ENABLED_PARTS: 'oracle',
        DATA_DIR: dir,
        ...database.env,
        REDIS_URL: '',
        ORACLE_SIGNING_KEY: signingKey,
        ORACLE_RUN_LEASE_SECONDS: '1',
        // 400 words at 5 ms: the kill after 60 events lands well inside the answer.
        SCRIPTED_MODEL_DELAY_MS: '5',
      },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const base = `http://127.0.0.1:${port}`;
      await untilServing(port, child, { path: '/config', ms: 20_000 });
      const config = (await (await fetch(`${base}/config`)).json()) as { did: string };
      const user = await newUser(config.did);
      const session = await oracleApi(base, user).createSession();
      const response = await fetch(`${base}/messages/${session.sessionId}`, {
        method: 'POST',
        headers: { ...user.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ message: LONG, stream: true }),
      });
      const runId = response.headers.get('x-run-id') as string;
      const seen = await readSse(response.body!, (_e, all) => {
        if (all.length === 60) child.kill('SIGKILL');
        return false;
      });
      expect(seen.events.some((e) => e.event === 'done')).toBe(false);
      await exited;

      // The restarted server streams fast: the test waits for the end of the answer.
      const db = await database.open();
      try {
        await using b = await startOracleApp({
          db,
          signingKey,
          env: { ORACLE_RUN_LEASE_SECONDS: '1', SCRIPTED_MODEL_DELAY_MS: '1' },
        });
        expect(b.oracleDid).toBe(config.did);
        const rest = await oracleApi(b.url, user).rejoin(runId, seen.events.at(-1)?.id as number);
        const marker = rest.events.find((e) => e.event === 'run');
        expect(marker?.data).toMatchObject({ runId, resumed: true });
        expect(assembledText([...seen.events, ...rest.events])).toBe(FULL);
        expect(rest.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      } finally {
        await db.close();
      }
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000); // one cold start of a real server process
});
