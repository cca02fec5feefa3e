import http from 'node:http';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger.js';
import { createOracleSockets } from '../../../server/oracle/socket/socket-server.js';
import { freePort } from '../../helpers/private-redis.js';

// CI failed on two "Connection is closed." unhandled rejections while an app with Redis closed: the socket.io
// Redis adapter subscribes (and publishes) without handling the command's promise, so a command still queued
// when the adapter's clients quit rejected with no one listening (in production, Node stops on that).

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  unhandled.length = 0;
});

describe('the socket.io Redis adapter', () => {
  it('closes while its Redis does not answer without an unhandled rejection (its queued subscribe commands are cut off)', async () => {
    process.on('unhandledRejection', onUnhandled);
    const port = await freePort(); // nothing listens there: the adapter's commands wait in the offline queue
    const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 20 });
    redis.on('error', () => undefined);
    const sockets = createOracleSockets({
      verifier: undefined as never,
      sessions: undefined as never,
      rooms: undefined as never,
      bridge: () => undefined as never,
      corsOrigins: ['*'],
      redis,
      redisKey: 'test-socket.io',
      logger: createLogger('silent'),
    });
    const server = http.createServer();
    sockets.attach(server);
    sockets.emitToSession('s-1', 'tool_call', {} as never); // a publish, also queued
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sockets.close();
    server.close();
    redis.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(unhandled.map((r) => (r instanceof Error ? r.message : String(r)))).toEqual([]);
  });
});
