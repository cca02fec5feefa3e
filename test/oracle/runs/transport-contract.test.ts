import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger.js';
import {
  createLocalControlBus,
  createRedisControlBus,
  type ControlBus,
  type ControlMessage,
} from '../../../server/oracle/runs/control-bus.js';
import { runEvent, type RunEventLog, type RunEventRecord } from '../../../server/oracle/runs/event-log.js';
import { createMemoryRunEventLog } from '../../../server/oracle/runs/memory-event-log.js';
import { createRedisRunEventLog } from '../../../server/oracle/runs/redis-event-log.js';
import { deleteKeys, openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';

// One contract, every implementation: the in-process event log and control bus (embedded defaults) and the
// Redis ones (several instances). The Redis column runs when REDIS_URL is set, as CI sets it.

let redis: Redis | undefined;
const prefixes: string[] = [];
beforeAll(async () => {
  if (TEST_REDIS_URL) redis = await openTestRedis();
});
afterAll(async () => {
  if (redis) {
    for (const prefix of prefixes) await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

/** Waits until `check` passes (a Redis subscriber hears a message a little later). */
async function eventually(check: () => void | Promise<void>, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

const message = (id: number, content: string): RunEventRecord =>
  runEvent(id, 'message', { content, timestamp: '2026-01-01T00:00:00.000Z' });

interface Column {
  name: string;
  enabled: boolean;
  /** Two handles on the same store: two instances of the service. */
  logs(): [RunEventLog, RunEventLog];
  buses(): [ControlBus, ControlBus];
}

const columns: Column[] = [
  {
    name: 'in process',
    enabled: true,
    logs: () => {
      const log = createMemoryRunEventLog({ maxAgeSeconds: 60 });
      return [log, log];
    },
    buses: () => {
      const bus = createLocalControlBus();
      return [bus, bus];
    },
  },
  {
    name: 'Redis',
    enabled: TEST_REDIS_URL !== undefined,
    logs: () => {
      const prefix = testRedisPrefix('contract');
      prefixes.push(prefix);
      const make = () =>
        createRedisRunEventLog({
          redis: redis as Redis,
          prefix,
          maxAgeSeconds: 60,
          logger: createLogger('silent'),
        });
      return [make(), make()];
    },
    buses: () => {
      const prefix = testRedisPrefix('contract');
      return [createRedisControlBus(redis as Redis, prefix), createRedisControlBus(redis as Redis, prefix)];
    },
  },
];

for (const column of columns) {
  describe.runIf(column.enabled)(`run event log and control bus contract: ${column.name}`, () => {
    it('keeps a run’s events in order, reads those after an id, and keeps runs apart', async () => {
      const [log] = column.logs();
      await log.append('run-a', message(1, 'one'));
      await log.append('run-a', message(2, 'two'));
      await log.append('run-b', message(1, 'other'));
      await log.append('run-a', runEvent(3, 'done', { status: 'finished' }));
      expect((await log.read('run-a', 0)).map((r) => r.id)).toEqual([1, 2, 3]);
      expect(await log.read('run-a', 1)).toEqual([
        message(2, 'two'),
        runEvent(3, 'done', { status: 'finished' }),
      ]);
      expect(await log.read('run-b', 0)).toEqual([message(1, 'other')]);
      expect(await log.read('run-unknown', 0)).toEqual([]);
      await log.close();
    });

    it('tells subscribers every event appended from then on, on this instance and on another', async () => {
      const [writer, reader] = column.logs();
      await writer.append('run-s', message(1, 'before'));
      const local: number[] = [];
      const remote: number[] = [];
      const stopLocal = await writer.subscribe('run-s', (r) => local.push(r.id));
      const stopRemote = await reader.subscribe('run-s', (r) => remote.push(r.id));
      await writer.append('run-s', message(2, 'after'));
      await writer.append('run-s', message(3, 'again'));
      // A follower skips ids it has passed: a copy heard twice is allowed, a missing or reordered one is not.
      const distinct = (ids: number[]) => ids.filter((id, i) => ids.indexOf(id) === i);
      await eventually(() => expect(distinct(local)).toEqual([2, 3]));
      await eventually(() => expect(distinct(remote)).toEqual([2, 3]));
      stopLocal();
      stopRemote();
      await writer.append('run-s', message(4, 'unheard'));
      await new Promise((r) => setTimeout(r, 50));
      expect(distinct(local)).toEqual([2, 3]);
      expect(distinct(remote)).toEqual([2, 3]);
      await writer.close();
      if (reader !== writer) await reader.close();
    });

    it('forgets a run’s events once its retention has passed', async () => {
      const [log] = column.logs();
      await log.append('run-r', message(1, 'kept a while'));
      await log.retain('run-r', 1);
      expect(await log.read('run-r', 0)).toHaveLength(1);
      await eventually(async () => expect(await log.read('run-r', 0)).toEqual([]), 3000);
      await log.close();
    });

    it('delivers control messages to every subscriber of every instance, the sender’s own too', async () => {
      const [a, b] = column.buses();
      const heardA: ControlMessage[] = [];
      const heardB: ControlMessage[] = [];
      const stopA = a.subscribe((m) => heardA.push(m));
      const stopB = b.subscribe((m) => heardB.push(m));
      // A Redis subscriber listens once its SUBSCRIBE is acknowledged: publish until both hear.
      const abort: ControlMessage = { type: 'abort', runId: 'run-x', reason: 'aborted' };
      await eventually(async () => {
        if (heardA.length === 0 || heardB.length === 0) await a.publish(abort);
        expect(heardA.length).toBeGreaterThan(0);
        expect(heardB.length).toBeGreaterThan(0);
      });
      heardA.length = 0;
      heardB.length = 0;
      const result: ControlMessage = {
        type: 'frontend_result',
        toolCallId: 'call-1',
        userDid: 'did:key:z6Mk',
        sessionId: 's-1',
        result: { title: 'Page' },
        error: undefined,
      };
      await b.publish(result);
      await eventually(() => expect(heardA).toEqual([result]));
      await eventually(() => expect(heardB).toEqual([result]));
      stopA();
      await b.publish(abort);
      await eventually(() => expect(heardB).toEqual([result, abort]));
      expect(heardA).toEqual([result]);
      stopB();
      await a.close();
      if (b !== a) await b.close();
    });
  });
}
