// The control bus between instances (aborts, browser-call results): one contract run against the in-process
// bus always and the Redis one when REDIS_URL is set, where every instance hears every message, its own
// included; then what only Redis does (another instance, another prefix, text on the channel that is not ours).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  createLocalControlBus,
  createRedisControlBus,
  type ControlBus,
  type ControlMessage,
} from '../../../server/oracle/runs/control-bus.js';
import { openTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';

const abort = (runId: string): ControlMessage => ({ type: 'abort', runId, reason: 'aborted' });
const result: Extract<ControlMessage, { type: 'frontend_result' }> = {
  type: 'frontend_result',
  toolCallId: 'call_1',
  userDid: 'did:key:user',
  sessionId: 'ses_1',
  result: { ok: true },
  error: 'the tab said no',
};

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

/** Waits until a message published on `bus` reaches `heard` (a Redis subscription takes a moment). */
async function subscribed(bus: ControlBus, heard: ControlMessage[]): Promise<void> {
  await until(() => {
    if (heard.length === 0) void bus.publish(abort('warm-up'));
    return heard.length > 0;
  });
}

/** What was heard but the warm-ups of {@link subscribed} (one may still arrive after it returned). */
const real = (heard: ControlMessage[]): ControlMessage[] =>
  heard.filter((m) => !(m.type === 'abort' && m.runId === 'warm-up'));

function contract(name: string, open: () => Promise<{ bus: ControlBus; close: () => Promise<void> }>) {
  describe(`${name} control bus`, () => {
    let bus: ControlBus;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ bus, close } = await open());
    });
    afterAll(() => close());

    it('hands each message, both kinds, to every listener in order; an unsubscribed listener hears no more', async () => {
      const a: ControlMessage[] = [];
      const b: ControlMessage[] = [];
      const offA = bus.subscribe((m) => a.push(m));
      const offB = bus.subscribe((m) => b.push(m));
      await subscribed(bus, a);
      await bus.publish(abort('run_1'));
      await bus.publish(result);
      await until(() => real(a).length === 2 && real(b).length === 2);
      expect(real(a)).toEqual([abort('run_1'), result]);
      expect(real(b)).toEqual([abort('run_1'), result]);
      offA();
      await bus.publish(abort('run_2'));
      await until(() => real(b).length === 3);
      await new Promise((r) => setTimeout(r, 50));
      expect(real(a)).toEqual([abort('run_1'), result]);
      expect(real(b)).toEqual([abort('run_1'), result, abort('run_2')]);
      offB();
    });

    it('takes any number of listeners without a leak warning', async () => {
      const warnings: Error[] = [];
      const onWarning = (w: Error) => void warnings.push(w);
      process.on('warning', onWarning);
      const offs = Array.from({ length: 50 }, () => bus.subscribe(() => undefined));
      await new Promise((r) => setTimeout(r, 20));
      process.off('warning', onWarning);
      for (const off of offs) off();
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    });

    it('a closed bus hands nothing to its listeners', async () => {
      const { bus: own, close: closeOwn } = await open();
      const heard: ControlMessage[] = [];
      own.subscribe((m) => heard.push(m));
      await subscribed(own, heard);
      heard.length = 0;
      await new Promise((r) => setTimeout(r, 50));
      await closeOwn();
      await bus.publish(abort('after close'));
      await own.publish(abort('after close')).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
      expect(real(heard)).toEqual([]);
    });
  });
}

contract('the in-process', () => {
  const bus = createLocalControlBus();
  return Promise.resolve({ bus, close: () => bus.close() });
});

describe.runIf(TEST_REDIS_URL)('with Redis', () => {
  let redis: Redis;
  let prefix: string;
  beforeAll(async () => {
    redis = await openTestRedis();
    prefix = testRedisPrefix();
  });
  afterAll(() => redis.disconnect());

  contract('the Redis', () => {
    const bus = createRedisControlBus(redis, prefix);
    return Promise.resolve({ bus, close: () => bus.close() });
  });

  it('another instance hears every message, and its own are heard here; text that is not ours is ignored', async () => {
    const one = createRedisControlBus(redis, prefix);
    const two = createRedisControlBus(redis, prefix);
    const heardByOne: ControlMessage[] = [];
    const heardByTwo: ControlMessage[] = [];
    one.subscribe((m) => heardByOne.push(m));
    two.subscribe((m) => heardByTwo.push(m));
    await subscribed(one, heardByOne);
    await subscribed(two, heardByTwo);
    await redis.publish(`${prefix}control`, 'not json');
    await one.publish(abort('from one'));
    await two.publish(abort('from two'));
    await until(() => real(heardByOne).length === 2 && real(heardByTwo).length === 2);
    expect(real(heardByOne)).toEqual([abort('from one'), abort('from two')]);
    expect(real(heardByTwo)).toEqual([abort('from one'), abort('from two')]);
    await one.close();
    await two.close();
  });

  it('a bus of another prefix hears none of it', async () => {
    const mine = createRedisControlBus(redis, prefix);
    const other = createRedisControlBus(redis, testRedisPrefix());
    const heardMine: ControlMessage[] = [];
    const heardOther: ControlMessage[] = [];
    mine.subscribe((m) => heardMine.push(m));
    other.subscribe((m) => heardOther.push(m));
    await subscribed(other, heardOther);
    await subscribed(mine, heardMine);
    await mine.publish(abort('for mine'));
    await until(() => real(heardMine).length === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(real(heardOther)).toEqual([]);
    await mine.close();
    await other.close();
  });
});
