import { describe, expect, it } from 'vitest';
import { isPermanent, retryStore } from '../../../server/oracle/runs/store-retry.js';
import { VirtualClock } from '../../helpers/virtual-clock.js';

// The one retry of the runs layer (recording a run's start and end, waiting for a run stopped elsewhere,
// catching up on a run's missed events), on a virtual clock: each case counts tries and pauses, never real time.

const down = (): Error => Object.assign(new Error('connection terminated'), { code: '08006' });

/** An attempt that answers from `script` in order: an Error is thrown, anything else answered. */
function scripted<T>(...script: (T | Error)[]): { attempt: () => Promise<T>; tries: () => number } {
  let tries = 0;
  return {
    attempt: () => {
      const next = script[Math.min(tries++, script.length - 1)];
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next as T);
    },
    tries: () => tries,
  };
}

describe('retryStore', () => {
  it('an attempt that answers at once: one try, no pause', async () => {
    const clock = new VirtualClock();
    const { attempt, tries } = scripted('ok');
    expect(await retryStore(attempt, { everyMs: 250, clock })).toBe('ok');
    expect(tries()).toBe(1);
    expect(clock.slept).toEqual([]);
  });

  it('failures are tried again after each pause until one answers', async () => {
    const clock = new VirtualClock();
    const { attempt, tries } = scripted<string>(down(), down(), 'stored');
    expect(await retryStore(attempt, { everyMs: 250, forMs: 5000, clock })).toBe('stored');
    expect(tries()).toBe(3);
    expect(clock.slept).toEqual([250, 250]);
  });

  it('a failure retryOn refuses is thrown at once', async () => {
    const clock = new VirtualClock();
    const refused = Object.assign(new Error('duplicate key'), { code: '23505' });
    const { attempt, tries } = scripted<string>(refused, 'never');
    const retryOn = (err: unknown): boolean => !isPermanent(err);
    await expect(retryStore(attempt, { everyMs: 250, retryOn, clock })).rejects.toBe(refused);
    expect(tries()).toBe(1);
    expect(clock.slept).toEqual([]);
  });

  it('gives up once forMs has passed, throwing the last failure', async () => {
    const clock = new VirtualClock();
    const last = down();
    const { attempt, tries } = scripted<string>(down(), down(), down(), down(), last);
    await expect(retryStore(attempt, { everyMs: 250, forMs: 1000, clock })).rejects.toBe(last);
    // Tried at 0, 250, 500, 750 and 1000 ms.
    expect(tries()).toBe(5);
    expect(clock.now()).toBe(1000);
  });

  it('gives up at the first failure once stopped (an instance closing)', async () => {
    const clock = new VirtualClock();
    let closing = false;
    const { attempt, tries } = scripted<string>(down(), down(), down());
    const stopped = (): boolean => {
      if (tries() === 2) closing = true;
      return closing;
    };
    await expect(retryStore(attempt, { everyMs: 250, stopped, clock })).rejects.toThrow(
      'connection terminated',
    );
    expect(tries()).toBe(2);
  });

  it('with until: asks again after each pause until the answer is the one waited for', async () => {
    const clock = new VirtualClock();
    const { attempt, tries } = scripted('running', 'running', 'aborted');
    const until = (status: string): boolean => status !== 'running';
    expect(await retryStore(attempt, { everyMs: 50, forMs: 2000, until, clock })).toBe('aborted');
    expect(tries()).toBe(3);
    expect(clock.slept).toEqual([50, 50]);
  });

  it('with until and no answer waited for within forMs: the last answer, as it is', async () => {
    const clock = new VirtualClock();
    const { attempt, tries } = scripted('running');
    const until = (status: string): boolean => status !== 'running';
    expect(await retryStore(attempt, { everyMs: 50, forMs: 2000, until, clock })).toBe('running');
    expect(tries()).toBe(41);
    expect(clock.now()).toBe(2000);
  });

  it('with until, a failure not retried is thrown', async () => {
    const clock = new VirtualClock();
    const { attempt } = scripted<string>('running', down());
    const options = { everyMs: 50, retryOn: () => false, until: (s: string) => s !== 'running', clock };
    await expect(retryStore(attempt, options)).rejects.toThrow('connection terminated');
  });
});

describe('isPermanent', () => {
  const cases: [string, unknown, boolean][] = [
    ['a unique violation (23505)', { code: '23505' }, true],
    ['a foreign key violation (23503)', { code: '23503' }, true],
    ['an invalid text (22P02)', { code: '22P02' }, true],
    ['a lost connection (08006)', { code: '08006' }, false],
    ['a serialization failure (40001)', { code: '40001' }, false],
    ['a numeric code (not a SQLSTATE)', { code: 23505 }, false],
    ['an error without a code', new Error('timeout'), false],
    ['null', null, false],
  ];
  for (const [name, err, permanent] of cases) {
    it(`${name}: ${permanent ? 'permanent' : 'tried again'}`, () => {
      expect(isPermanent(err)).toBe(permanent);
    });
  }
});
