import { spawn } from 'node:child_process';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreTimeoutError, withTimeout } from '../../server/with-timeout.js';

afterEach(() => vi.useRealTimers());

describe('withTimeout: a store call that does not settle in time', () => {
  it('rejects with a StoreTimeoutError naming the call and the time', async () => {
    // setImmediate stays real: the timeout gives up one poll pass after its timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
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

  it('answers what arrived during a stall of the event loop longer than the timeout', async () => {
    // A real socket to an echo server in another process: the answer is sent at once, but this process is busy
    // for longer than the timeout, so the timer is due before the answer has been read. Node runs due timers
    // before it reads sockets.
    const echo = spawn(
      process.execPath,
      [
        '-e',
        "const s = require('net').createServer((c) => c.on('data', (d) => c.end(d)));" +
          "s.listen(0, '127.0.0.1', () => console.log(s.address().port));",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const port = await new Promise<number>((resolve) =>
      echo.stdout.once('data', (d: Buffer) => resolve(Number(d.toString()))),
    );
    try {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const echoed = new Promise<string>((resolve) => socket.once('data', (d) => resolve(d.toString())));
      const timed = withTimeout(echoed, 50, 'redis PING');
      socket.write('PONG');
      // Long enough for the echo to arrive, and four times the timeout.
      const until = Date.now() + 200;
      while (Date.now() < until);
      await expect(timed).resolves.toBe('PONG');
      socket.destroy();
    } finally {
      echo.kill();
    }
  });
});
