import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreTimeoutError, withTimeout } from '../../server/ussd/session/with-timeout.js';

afterEach(() => vi.useRealTimers());

describe('withTimeout: a store call that does not settle in time', () => {
  it('rejects with a StoreTimeoutError naming the call and the time', async () => {
    vi.useFakeTimers();
    const never = new Promise<string>(() => undefined);
    const timed = withTimeout(never, 250, 'redis GET');
    const caught = timed.catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(250);
    const err = await caught;
    expect(err).toBeInstanceOf(StoreTimeoutError);
    expect(err).toMatchObject({ name: 'StoreTimeoutError', message: 'redis GET timed out after 250 ms' });
  });

  it('answers what settles in time, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    await expect(withTimeout(Promise.resolve('v'), 250, 'redis GET')).resolves.toBe('v');
    await expect(withTimeout(Promise.reject(new Error('down')), 250, 'redis SET')).rejects.toThrow('down');
    expect(vi.getTimerCount()).toBe(0);
  });
});
