import { describe, expect, it } from 'vitest';
import { createKeyedMutex } from '../../../server/ussd/session/keyed-mutex.js';

/** A promise and the function that settles it, for work a test finishes when it chooses. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the keyed mutex of the USSD flow', () => {
  it('runs the work of one key one at a time, in arrival order, and answers each its own value', async () => {
    const mutex = createKeyedMutex();
    const journal: string[] = [];
    const gates = [gate(), gate(), gate()];
    const results = gates.map((g, i) =>
      mutex.run('s1', async () => {
        journal.push(`start ${i}`);
        await g.promise;
        journal.push(`end ${i}`);
        return i * 10;
      }),
    );
    await tick();
    expect(journal).toEqual(['start 0']);
    // The last one finishing first changes nothing: it has not started.
    gates[2]?.open();
    await tick();
    expect(journal).toEqual(['start 0']);
    gates[0]?.open();
    await tick();
    expect(journal).toEqual(['start 0', 'end 0', 'start 1']);
    gates[1]?.open();
    expect(await Promise.all(results)).toEqual([0, 10, 20]);
    expect(journal).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('a third caller waits for the second even after the first one finished', async () => {
    const mutex = createKeyedMutex();
    const first = gate();
    const second = gate();
    let running = 0;
    let most = 0;
    const work = (g: { promise: Promise<void> }) => async () => {
      running++;
      most = Math.max(most, running);
      await g.promise;
      running--;
    };
    const a = mutex.run('k', work(first));
    const b = mutex.run('k', work(second));
    first.open();
    await a;
    await tick();
    // The second holds the key now; the third arrives.
    const c = mutex.run('k', work({ promise: Promise.resolve() }));
    await tick();
    expect(running).toBe(1);
    second.open();
    await Promise.all([b, c]);
    expect(most).toBe(1);
  });

  it('runs different keys side by side', async () => {
    const mutex = createKeyedMutex();
    const held = gate();
    const journal: string[] = [];
    const a = mutex.run('a', async () => {
      journal.push('a');
      await held.promise;
    });
    const b = mutex.run('b', () => {
      journal.push('b');
      return Promise.resolve('b done');
    });
    expect(await b).toBe('b done');
    expect(journal).toEqual(['a', 'b']);
    held.open();
    await a;
  });

  it('a failing work gives its error to its caller and frees the key for the next', async () => {
    const mutex = createKeyedMutex();
    const failing = mutex.run('k', () => Promise.reject(new Error('boom')));
    const next = mutex.run('k', () => Promise.resolve('after'));
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('after');
    // And again, once everything settled (nothing is left holding the key).
    expect(await mutex.run('k', () => Promise.resolve('again'))).toBe('again');
  });
});
