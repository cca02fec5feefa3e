// The control bus between instances (aborts, browser-call results): in process, and over Redis pub/sub (when
// REDIS_URL is set), where every instance hears every message, its own included, and anything on the channel
// that is not one of ours is ignored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  createLocalControlBus,
  createRedisControlBus,
  type ControlBus,
  type ControlMessage,
} from '../../server/oracle/runs/control-bus.js';
import { openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../helpers/redis.js';

const abort = (runId: string): ControlMessage => ({ type: 'abort', runId, reason: 'aborted' });

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('the in-process control bus', () => {
  it('hands each message to every listener at once; an unsubscribed listener and a closed bus hear nothing', async () => {
    const bus = createLocalControlBus();
    const a: ControlMessage[] = [];
    const b: ControlMessage[] = [];
    const offA = bus.subscribe((m) => a.push(m));
    bus.subscribe((m) => b.push(m));
    await bus.publish(abort('run_1'));
    expect(a).toEqual([abort('run_1')]);
    expect(b).toEqual([abort('run_1')]);
    offA();
    await bus.publish(abort('run_2'));
    expect(a).toEqual([abort('run_1')]);
    expect(b).toEqual([abort('run_1'), abort('run_2')]);
    await bus.close();
    await bus.publish(abort('run_3'));
    expect(b).toHaveLength(2);
  });

  it('takes any number of listeners without a leak warning', async () => {
    const bus = createLocalControlBus();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on('warning', onWarning);
    const offs = Array.from({ length: 50 }, () => bus.subscribe(() => undefined));
    await new Promise((r) => setTimeout(r, 20));
    process.off('warning', onWarning);
    for (const off of offs) off();
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});

describe.runIf(TEST_REDIS_URL)('the Redis control bus', () => {
  let redis: Redis;
  let prefix: string;
  let one: ControlBus;
  let two: ControlBus;
  beforeAll(async () => {
    redis = await openTestRedis();
    prefix = testRedisPrefix();
    one = createRedisControlBus(redis, prefix);
    two = createRedisControlBus(redis, prefix);
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    redis.disconnect();
  });

  it('every instance hears every message, its own too, in order; other text on the channel is ignored', async () => {
    const heardByOne: ControlMessage[] = [];
    const heardByTwo: ControlMessage[] = [];
    one.subscribe((m) => heardByOne.push(m));
    two.subscribe((m) => heardByTwo.push(m));
    const result: Extract<ControlMessage, { type: 'frontend_result' }> = {
      type: 'frontend_result',
      toolCallId: 'call_1',
      userDid: 'did:key:user',
      sessionId: 'ses_1',
      result: { ok: true },
      error: undefined,
    };
    // Published before the subscriptions are surely in place: sent again until both hear it.
    await until(() => {
      if (heardByOne.length === 0 || heardByTwo.length === 0) void one.publish(abort('warm-up'));
      return heardByOne.length > 0 && heardByTwo.length > 0;
    });
    heardByOne.length = 0;
    heardByTwo.length = 0;
    await redis.publish(`${prefix}control`, 'not json');
    await one.publish(abort('run_1'));
    await two.publish(result);
    await until(() => heardByOne.length === 2 && heardByTwo.length === 2);
    // The frontend result's `error: undefined` does not survive JSON: the field is absent on arrival.
    const { error: _undefined, ...arrived } = result;
    expect(heardByOne).toEqual([abort('run_1'), arrived]);
    expect(heardByTwo).toEqual([abort('run_1'), arrived]);
  });

  it('a bus of another prefix hears none of it', async () => {
    const other = createRedisControlBus(redis, testRedisPrefix());
    const heard: ControlMessage[] = [];
    other.subscribe((m) => heard.push(m));
    const mine: ControlMessage[] = [];
    const off = one.subscribe((m) => mine.push(m));
    await until(() => {
      void one.publish(abort('for one'));
      return mine.length > 0;
    });
    await new Promise((r) => setTimeout(r, 100));
    off();
    await other.close();
    expect(heard).toEqual([]);
  });
});
