// Per-user limits of the agent service: turns per minute and turns in flight (429 with retryAfter and
// Retry-After), message and body size (413), counted in Redis when it is configured and in this process's memory
// while Redis does not answer, as the USSD rate limiter does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { createTurnLimits, RUNS_RETRY_AFTER_SECONDS } from '../../server/oracle/limits/turn-limits.js';
import { openRedis, waitForRedis } from '../../server/server.js';
import { captureLogs } from '../helpers/logs.js';
import { haveRedisServer, startPrivateRedis } from '../helpers/private-redis.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../helpers/redis.js';
import { TEST_ENV } from '../helpers/env.js';
import { newUser, oracleApi, type OracleUser } from '../helpers/oracle/oracle-client.js';
import { newOracleKey, startOracleApp, type OracleApp } from '../helpers/oracle/oracle-app.js';
import { openTestDb } from '../helpers/db.js';

const REDIS_SERVER = await haveRedisServer();

/** Opens a stream and reads until its first event, leaving the turn running. */
async function startLongTurn(app: OracleApp, user: OracleUser, sessionId: string) {
  const controller = new AbortController();
  const response = await fetch(`${app.url}/messages/${sessionId}`, {
    method: 'POST',
    headers: { ...user.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'write a long story', stream: true }),
    signal: controller.signal,
  });
  if (response.ok) {
    const reader = response.body?.getReader();
    await reader?.read();
  }
  return { response, stop: () => controller.abort() };
}

describe('turns per minute (ORACLE_TURNS_PER_MINUTE)', () => {
  let app: OracleApp;
  beforeAll(async () => {
    app = await startOracleApp({ env: { ORACLE_TURNS_PER_MINUTE: '3' } });
  });
  afterAll(() => app.close());

  it('the turn past the limit answers 429 too_many_turns with retryAfter and Retry-After, and writes nothing', async () => {
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    for (const message of ['one', 'two', 'three']) {
      expect((await api.call('POST', `/messages/${session.sessionId}`, { message })).status).toBe(200);
    }
    const refused = await api.call('POST', `/messages/${session.sessionId}`, {
      message: 'four',
      stream: true,
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.body).toEqual({
      code: 'too_many_turns',
      message: expect.stringContaining('more than 3 messages this minute'),
      statusCode: 429,
      requestId: expect.any(String),
      retryAfter: expect.any(Number),
    });
    expect(refused.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.body.retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfter));
    const history = (await api.call('GET', `/messages/${session.sessionId}`)).body.messages as unknown[];
    expect(history).toHaveLength(6);
    // Another user has a budget of their own.
    const other = oracleApi(app.url, await newUser(app.oracleDid));
    const theirs = await other.createSession();
    expect((await other.call('POST', `/messages/${theirs.sessionId}`, { message: 'hi' })).status).toBe(200);
  });

  it('a turn refused before the limits (no such session, not yours, unknown model, too long) counts for nothing', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const session = await api.createSession();
    const stranger = oracleApi(app.url, await newUser(app.oracleDid));
    const theirs = await stranger.createSession();
    const refusals = [
      [`/messages/${crypto.randomUUID()}`, { message: 'hi' }, 404],
      [`/messages/${theirs.sessionId}`, { message: 'hi' }, 404],
      [`/messages/${session.sessionId}`, { message: 'hi', model: 'no-such-model' }, 400],
      [`/messages/${session.sessionId}`, { message: 'x'.repeat(20_001) }, 413],
    ] as const;
    for (const [path, body, status] of refusals)
      expect((await api.call('POST', path, body)).status).toBe(status);
    // The limits are asked while the session is read: each refusal gave back what they took.
    for (const message of ['one', 'two', 'three']) {
      expect((await api.call('POST', `/messages/${session.sessionId}`, { message })).status).toBe(200);
    }
    expect((await api.call('POST', `/messages/${session.sessionId}`, { message: 'four' })).status).toBe(429);
  });
});

describe('turns in flight (ORACLE_MAX_CONCURRENT_RUNS)', () => {
  let app: OracleApp;
  beforeAll(async () => {
    app = await startOracleApp({ env: { ORACLE_MAX_CONCURRENT_RUNS: '2', SCRIPTED_MODEL_DELAY_MS: '20' } });
  });
  afterAll(() => app.close());

  it("a third session running at once answers 429 too_many_runs; a turn that replaces its session's own does not count twice; an ended run frees its slot", async () => {
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const [s1, s2, s3] = await Promise.all([api.createSession(), api.createSession(), api.createSession()]);
    const first = await startLongTurn(app, user, s1.sessionId);
    const second = await startLongTurn(app, user, s2.sessionId);
    expect([first.response.status, second.response.status]).toEqual([200, 200]);
    const third = await api.call('POST', `/messages/${s3.sessionId}`, { message: 'hello' });
    expect(third).toMatchObject({
      status: 429,
      body: { code: 'too_many_runs', statusCode: 429, retryAfter: RUNS_RETRY_AFTER_SECONDS },
    });
    expect(third.headers.get('retry-after')).toBe(String(RUNS_RETRY_AFTER_SECONDS));
    expect((await api.call('GET', `/messages/${s3.sessionId}`)).body.messages).toEqual([]);
    // A new message on a running session replaces its turn: still two in flight.
    const replacing = await startLongTurn(app, user, s1.sessionId);
    expect(replacing.response.status).toBe(200);
    // Aborting one frees its slot.
    expect((await api.call('POST', '/messages/abort', { sessionId: s2.sessionId })).body.success).toBe(true);
    await expect
      .poll(async () => (await api.call('POST', `/messages/${s3.sessionId}`, { message: 'now?' })).status, {
        timeout: 5000,
      })
      .toBe(200);
    for (const t of [first, second, replacing]) t.stop();
    await api.call('POST', '/messages/abort', { sessionId: s1.sessionId });
  });
});

describe('turns in flight: refusals and dropped streams', () => {
  let app: OracleApp;
  beforeAll(async () => {
    app = await startOracleApp({ env: { ORACLE_MAX_CONCURRENT_RUNS: '2', SCRIPTED_MODEL_DELAY_MS: '20' } });
  });
  afterAll(() => app.close());

  it('a turn refused after it took its slot (no delegation yet) gives it back', async () => {
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const [s1, s2, r1, r2] = await Promise.all([
      api.createSession(),
      api.createSession(),
      api.createSession(),
      api.createSession(),
    ]);
    const { 'x-ucan-delegation': _delegation, ...withoutDelegation } = user.headers;
    // Two sessions (a session's slot is one, whatever its number of turns), as many as the limit.
    for (const refusedSession of [r1, r2]) {
      const refused = await fetch(`${app.url}/messages/${refusedSession.sessionId}`, {
        method: 'POST',
        headers: { ...withoutDelegation, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { code: string }).code).toBe('delegation_missing');
    }
    const turns = [
      await startLongTurn(app, user, s1.sessionId),
      await startLongTurn(app, user, s2.sessionId),
    ];
    expect(turns.map((t) => t.response.status)).toEqual([200, 200]);
    for (const t of turns) t.stop();
    await api.call('POST', '/messages/abort', { sessionId: s1.sessionId });
    await api.call('POST', '/messages/abort', { sessionId: s2.sessionId });
  });

  it('a streamed turn whose client went away keeps its slot while its run goes on; a delegation sent once is kept', async () => {
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const [s1, s2, s3] = await Promise.all([api.createSession(), api.createSession(), api.createSession()]);
    const dropped = await startLongTurn(app, user, s1.sessionId);
    expect(dropped.response.status).toBe(200);
    dropped.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await api.call('GET', `/sessions/${s1.sessionId}/run`)).body.run.status).toBe('running');
    // The delegation came with the first turn: this one leaves it out.
    const { 'x-ucan-delegation': _delegation, ...withoutDelegation } = user.headers;
    const second = await startLongTurn(app, { ...user, headers: withoutDelegation }, s2.sessionId);
    expect(second.response.status).toBe(200);
    const third = await api.call('POST', `/messages/${s3.sessionId}`, { message: 'hello' });
    expect(third).toMatchObject({ status: 429, body: { code: 'too_many_runs' } });
    second.stop();
    await api.call('POST', '/messages/abort', { sessionId: s1.sessionId });
    await api.call('POST', '/messages/abort', { sessionId: s2.sessionId });
  });
});

describe('a run resumed by another instance', () => {
  it('holds its slot there: the user’s next session waits for it (429 too_many_runs) until it ends', async () => {
    await using db = await openTestDb();
    const signingKey = await newOracleKey();
    const env = {
      ORACLE_MAX_CONCURRENT_RUNS: '1',
      ORACLE_RUN_LEASE_SECONDS: '1',
      SCRIPTED_MODEL_DELAY_MS: '20',
      ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    };
    const redisPrefix = testRedisPrefix();
    const a = await startOracleApp({ db, signingKey, env, redisPrefix });
    const user = await newUser(a.oracleDid);
    const [s1, s2] = await Promise.all([
      oracleApi(a.url, user).createSession(),
      oracleApi(a.url, user).createSession(),
    ]);
    const turn = await startLongTurn(a, user, s1.sessionId);
    expect(turn.response.status).toBe(200);
    // A lets go of the run at shutdown (and of its slot); B resumes it.
    turn.stop();
    await a.close();
    await using b = await startOracleApp({ db, signingKey, env, redisPrefix });
    const onB = oracleApi(b.url, user);
    // Let go, the run is `recovering`; resumed, `running` again.
    await expect
      .poll(async () => (await onB.call('GET', `/sessions/${s1.sessionId}/run`)).body.run?.status, {
        timeout: 10_000,
      })
      .toBe('running');
    const refused = await onB.call('POST', `/messages/${s2.sessionId}`, { message: 'hello' });
    expect(refused).toMatchObject({ status: 429, body: { code: 'too_many_runs' } });
    // Its end frees the slot.
    expect((await onB.call('POST', '/messages/abort', { sessionId: s1.sessionId })).body.success).toBe(true);
    await expect
      .poll(async () => (await onB.call('POST', `/messages/${s2.sessionId}`, { message: 'now?' })).status, {
        timeout: 5000,
      })
      .toBe(200);
  });
});

describe('sizes', () => {
  let app: OracleApp;
  beforeAll(async () => {
    app = await startOracleApp({
      env: { ORACLE_FEATURES: 'memory', ORACLE_MESSAGE_MAX_CHARS: '100', ORACLE_BODY_MAX_BYTES: '4096' },
    });
  });
  afterAll(() => app.close());

  it('a message over ORACLE_MESSAGE_MAX_CHARS and a body over ORACLE_BODY_MAX_BYTES answer 413 JSON on every route', async () => {
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    const long = await api.call('POST', `/messages/${session.sessionId}`, { message: 'x'.repeat(101) });
    expect(long).toMatchObject({
      status: 413,
      body: { code: 'payload_too_large', statusCode: 413, message: expect.stringContaining('at most 100') },
    });
    expect(
      (await api.call('POST', `/messages/${session.sessionId}`, { message: 'x'.repeat(100) })).status,
    ).toBe(200);
    for (const [path, body] of [
      [`/messages/${session.sessionId}`, { message: 'ok', metadata: { pad: 'y'.repeat(5000) } }],
      ['/memory', { content: 'y'.repeat(5000) }],
      ['/rooms', { name: 'y'.repeat(5000) }],
    ] as const) {
      const r = await api.call('POST', path, body);
      expect({ path, status: r.status, code: r.body.code }).toEqual({
        path,
        status: 413,
        code: 'payload_too_large',
      });
    }
    expect((await api.call('GET', `/messages/${session.sessionId}`)).body.messages).toHaveLength(2);
  });
});

describe.runIf(TEST_REDIS_URL)('counted in Redis, shared by the instances', () => {
  it('two instances share one budget of turns per minute and of turns in flight', async () => {
    const redisPrefix = testRedisPrefix();
    const env = { REDIS_URL: TEST_REDIS_URL ?? '', ORACLE_TURNS_PER_MINUTE: '3' };
    const signingKey = await newOracleKey();
    await using one = await startOracleApp({ env, redisPrefix, signingKey });
    await using two = await startOracleApp({ env, redisPrefix, signingKey, db: one.db });
    const user = await newUser(one.oracleDid);
    const onOne = oracleApi(one.url, user);
    const onTwo = oracleApi(two.url, user);
    const session = await onOne.createSession();
    const sessionTwo = await onTwo.createSession();
    expect((await onOne.call('POST', `/messages/${session.sessionId}`, { message: 'a' })).status).toBe(200);
    expect((await onTwo.call('POST', `/messages/${sessionTwo.sessionId}`, { message: 'b' })).status).toBe(
      200,
    );
    expect((await onOne.call('POST', `/messages/${session.sessionId}`, { message: 'c' })).status).toBe(200);
    expect((await onTwo.call('POST', `/messages/${sessionTwo.sessionId}`, { message: 'd' })).status).toBe(
      429,
    );
  });
});

describe.runIf(REDIS_SERVER)('while Redis does not answer (as the USSD limiter)', () => {
  it('each instance counts in its own memory: the limit holds, nothing fails, one warning; Redis counts again when it returns', async () => {
    await using redisServer = await startPrivateRedis();
    const config = loadConfig({ ...TEST_ENV, ORACLE_TURNS_PER_MINUTE: '2', ORACLE_MAX_CONCURRENT_RUNS: '1' });
    const logs = captureLogs();
    const redis = openRedis(redisServer.url);
    expect(await waitForRedis(redis, 3000)).toBe(true);
    const logger = createLogger('info', logs.stream);
    const prefix = testRedisPrefix();
    const one = await createTurnLimits({ config, redis, redisPrefix: prefix, logger });
    const two = await createTurnLimits({ config, redis, redisPrefix: prefix, logger });
    try {
      // Shared: one count across both.
      await one.countTurn('did:key:zUser');
      await two.countTurn('did:key:zUser');
      await expect(one.countTurn('did:key:zUser')).rejects.toMatchObject({
        status: 429,
        code: 'too_many_turns',
      });
      await one.takeRun('did:key:zUser', { sessionId: 's1', requestId: 'r1' });
      await expect(two.takeRun('did:key:zUser', { sessionId: 's2', requestId: 'r2' })).rejects.toMatchObject({
        status: 429,
        code: 'too_many_runs',
      });

      await redisServer.kill();
      // Down: each instance limits on its own counts, and nothing throws but the limit's own 429.
      await one.countTurn('did:key:zOther');
      await one.countTurn('did:key:zOther');
      await expect(one.countTurn('did:key:zOther')).rejects.toMatchObject({ status: 429 });
      await one.takeRun('did:key:zOther', { sessionId: 's1', requestId: 'r1' });
      await expect(one.takeRun('did:key:zOther', { sessionId: 's2', requestId: 'r2' })).rejects.toMatchObject(
        {
          status: 429,
          code: 'too_many_runs',
        },
      );
      const warnings = logs.lines.filter((l) => String(l['msg']).includes('Redis does not answer'));
      // The turn counter and the run slots share the client's outage notice: one warning.
      expect(warnings).toHaveLength(1);

      await redisServer.start();
      // Once Redis answers again, counts land there (each attempt a user of its own).
      let attempt = 0;
      await expect
        .poll(
          async () => {
            const user = `did:key:zBack${attempt++}`;
            await one.countTurn(user);
            return (await redis.keys(`${prefix}turns:${user}`).catch(() => [])).length;
          },
          { timeout: 5000, interval: 100 },
        )
        .toBe(1);
      expect(logs.lines.some((l) => String(l['msg']).includes('Redis answers again'))).toBe(true);
    } finally {
      one.close();
      two.close();
      redis.disconnect();
    }
  });
});

describe('per-user quotas (issue 36 item 5): sessions, rooms owned and joined, members per room, memories', () => {
  let app: OracleApp;
  beforeAll(async () => {
    app = await startOracleApp({
      env: {
        ORACLE_FEATURES: 'memory',
        ORACLE_MAX_SESSIONS_PER_USER: '3',
        ORACLE_MAX_ROOMS_OWNED: '2',
        ORACLE_MAX_ROOMS_JOINED: '2',
        ORACLE_MAX_ROOM_MEMBERS: '2',
        ORACLE_MAX_MEMORIES_PER_USER: '2',
      },
    });
  });
  afterAll(() => app.close());

  const refusal = (name: string, limit: number) => ({
    status: 403,
    body: {
      code: 'quota_exceeded',
      message: expect.stringContaining(`at most ${limit}`),
      statusCode: 403,
      requestId: expect.any(String),
      quota: { name, limit },
    },
  });

  it('the session past ORACLE_MAX_SESSIONS_PER_USER answers 403 quota_exceeded; deleting one frees its place', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const made = [await api.createSession(), await api.createSession(), await api.createSession()];
    const refused = await api.call('POST', '/sessions', {});
    expect({ status: refused.status, body: refused.body }).toEqual(refusal('sessions', 3));
    expect((await api.call('GET', '/sessions')).body.total).toBe(3);
    await api.call('DELETE', `/sessions/${made[0]?.sessionId}`);
    expect((await api.call('POST', '/sessions', {})).status).toBe(201);
    // Another user has a quota of their own.
    expect(
      (await oracleApi(app.url, await newUser(app.oracleDid)).call('POST', '/sessions', {})).status,
    ).toBe(201);
  });

  it('concurrent creations never overshoot the quota: 10 at once with a quota of 3 make exactly 3', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const answers = await Promise.all(Array.from({ length: 10 }, () => api.call('POST', '/sessions', {})));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, ...Array(7).fill(403)]);
    expect((await api.call('GET', '/sessions')).body.total).toBe(3);
  });

  it('the room past ORACLE_MAX_ROOMS_OWNED answers 403 quota_exceeded', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    for (let i = 0; i < 2; i++) expect((await api.call('POST', '/rooms', {})).status).toBe(201);
    const refused = await api.call('POST', '/rooms', {});
    expect({ status: refused.status, body: refused.body }).toEqual(refusal('rooms_owned', 2));
    expect((await api.call('GET', '/rooms')).body.rooms).toHaveLength(2);
  });

  it('a user in ORACLE_MAX_ROOMS_JOINED rooms cannot be added to one more; adding them again where they are changes nothing', async () => {
    const victim = await newUser(app.oracleDid);
    const owners = await Promise.all([1, 2, 3].map(() => newUser(app.oracleDid)));
    const rooms: string[] = [];
    for (const owner of owners) {
      rooms.push(
        ((await oracleApi(app.url, owner).call('POST', '/rooms', {})).body as { roomId: string }).roomId,
      );
    }
    const add = (i: number) =>
      oracleApi(app.url, owners[i] as OracleUser).call(
        'PUT',
        `/rooms/${rooms[i]}/members/${encodeURIComponent(victim.did)}`,
      );
    expect((await add(0)).status).toBe(200);
    expect((await add(1)).status).toBe(200);
    const refused = await add(2);
    expect({ status: refused.status, body: refused.body }).toEqual(refusal('rooms_joined', 2));
    expect((await add(1)).status).toBe(200);
    expect((await oracleApi(app.url, victim).call('GET', '/rooms')).body.rooms).toHaveLength(2);
  });

  it('the member past ORACLE_MAX_ROOM_MEMBERS answers 403 quota_exceeded (the owner does not count)', async () => {
    const owner = oracleApi(app.url, await newUser(app.oracleDid));
    const room = (await owner.call('POST', '/rooms', {})).body as { roomId: string };
    const members = await Promise.all([1, 2, 3].map(() => newUser(app.oracleDid)));
    const add = (u: OracleUser) =>
      owner.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(u.did)}`);
    expect((await add(members[0] as OracleUser)).status).toBe(200);
    expect((await add(members[1] as OracleUser)).status).toBe(200);
    const refused = await add(members[2] as OracleUser);
    expect({ status: refused.status, body: refused.body }).toEqual(refusal('room_members', 2));
    expect((await owner.call('GET', `/rooms/${room.roomId}`)).body.members).toHaveLength(3);
  });

  it('the memory past ORACLE_MAX_MEMORIES_PER_USER answers 403 quota_exceeded', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    for (const content of ['one', 'two'])
      expect((await api.call('POST', '/memory', { content })).status).toBe(201);
    const refused = await api.call('POST', '/memory', { content: 'three' });
    expect({ status: refused.status, body: refused.body }).toEqual(refusal('memories', 2));
    expect((await api.call('GET', '/memory')).body.total).toBe(2);
  });
});
