import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedisRunEventLog } from '../../../server/oracle/runs/redis-event-log.js';
import type { RunEventRecord } from '../../../server/oracle/runs/event-log.js';
import { createLogger } from '../../../server/logger.js';
import { openRedis, waitForRedis } from '../../../server/server.js';
import { captureLogs } from '../../helpers/logs.js';
import { haveRedisServer, startPrivateRedis } from '../../helpers/private-redis.js';
import { testRedisPrefix } from '../../helpers/redis.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp } from '../../helpers/oracle/oracle-app.js';
import { connectSocket } from '../../helpers/oracle/socket-client.js';

/** Defects the fault suite (npm run test:faults, agent phases) found with Redis killed under load. */

const READ_TITLE = {
  name: 'read_page_title',
  description: "Reads the title of the user's page.",
  schema: { type: 'object', properties: {} },
};

const record = (id: number): RunEventRecord => ({
  id,
  event: 'message',
  data: { content: `w${id} `, timestamp: '2026-01-01T00:00:00.000Z' },
});

/** Unhandled rejections while a test runs (Node ends a production process on the first one). */
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe.runIf(await haveRedisServer())('Redis killed while the agent service works', () => {
  it('socket.io Redis adapter publishing while Redis is down is not an unhandled rejection', async () => {
    await using redisServer = await startPrivateRedis();
    const redis = openRedis(redisServer.url);
    try {
      await using app = await startOracleApp({
        redis,
        env: { REDIS_URL: redisServer.url, ORACLE_TOOL_TIMEOUT_MS: '500' },
      });
      const user = await newUser(app.oracleDid);
      const api = oracleApi(app.url, user);
      const session = await api.createSession();
      const tab = await connectSocket(app.url, user, session.sessionId);
      try {
        await redisServer.kill();
        // The turn emits its tool call to the session's room: through the adapter, a PUBLISH that fails.
        const { events } = await api.stream(session.sessionId, {
          message: 'use read_page_title',
          tools: [READ_TITLE],
        });
        expect(events.at(-1)).toMatchObject({ event: 'done' });
        await sleep(300);
        expect(unhandled).toEqual([]);
      } finally {
        tab.close();
      }
    } finally {
      redis.disconnect();
    }
  });

  it('run events appended while Redis is down are stored once it is back, each once and in order', async () => {
    await using redisServer = await startPrivateRedis();
    const prefix = testRedisPrefix();
    const logger = createLogger('silent');
    const writerRedis = openRedis(redisServer.url);
    const readerRedis = openRedis(redisServer.url);
    // The instance executing the run, and another one a client re-joins on.
    const writer = createRedisRunEventLog({ redis: writerRedis, prefix, maxAgeSeconds: 60, logger });
    const reader = createRedisRunEventLog({ redis: readerRedis, prefix, maxAgeSeconds: 60, logger });
    try {
      expect(await waitForRedis(writerRedis, 3000)).toBe(true);
      expect(await waitForRedis(readerRedis, 3000)).toBe(true);
      for (const id of [1, 2, 3]) await writer.append('run_x', record(id));
      await redisServer.kill();
      // Refused now (the run manager logs it); kept for later.
      for (const id of [4, 5, 6]) await expect(writer.append('run_x', record(id))).rejects.toThrow();
      // The writer answers from memory meanwhile.
      expect((await writer.read('run_x', 2)).map((r) => r.id)).toEqual([3, 4, 5, 6]);
      // Back, without its data (no persistence): the writer stores the run whole again.
      await redisServer.start();
      await writer.append('run_x', record(7))?.catch(() => undefined);
      let ids: number[] = [];
      for (let i = 0; i < 100 && ids.length < 7; i++) {
        ids = (await reader.read('run_x', 0).catch(() => [])).map((r) => r.id);
        await sleep(50);
      }
      expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(unhandled).toEqual([]);
    } finally {
      await writer.close();
      await reader.close();
      writerRedis.disconnect();
      readerRedis.disconnect();
    }
  });

  it('an outage while turns stream is two log lines (one when it starts, one when it ends), not one per event', async () => {
    await using redisServer = await startPrivateRedis();
    const { lines, stream } = captureLogs();
    await using app = await startOracleApp({
      env: { REDIS_URL: redisServer.url, SCRIPTED_MODEL_DELAY_MS: '2', LOG_LEVEL: 'info' },
      logger: createLogger('info', stream),
    });
    const users = await Promise.all([1, 2, 3, 4].map(() => newUser(app.oracleDid)));
    const apis = users.map((user) => oracleApi(app.url, user));
    const sessions = await Promise.all(apis.map((api) => api.createSession()));
    await redisServer.kill();
    // Four turns of 39 events each while Redis is away: every one ends, answered from memory.
    const turns = await Promise.all(
      apis.map((api, i) => api.stream(sessions[i]!.sessionId, { message: 'hello' })),
    );
    for (const { events } of turns)
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    await redisServer.start();
    await expect
      .poll(() => lines.some((l) => l.msg === 'Redis answers again'), { timeout: 10_000 })
      .toBe(true);
    // A turn after it: nothing more is logged about Redis.
    const after = await apis[0]!.stream(sessions[0]!.sessionId, { message: 'hello' });
    expect(after.events.at(-1)).toMatchObject({ event: 'done' });
    const aboutRedis = lines.filter((l) => l.level >= 40 && /redis/i.test(`${l.msg} ${JSON.stringify(l)}`));
    expect(aboutRedis.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^Redis does not answer: run events wait in memory/),
      'Redis answers again',
    ]);
    // Said without a stack; how long it was away and what was not logged, at its end.
    expect(JSON.stringify(aboutRedis[0])).not.toContain('    at ');
    expect(aboutRedis[1]).toMatchObject({ failures: expect.any(Number), downMs: expect.any(Number) });
    expect(unhandled).toEqual([]);
  });
});
