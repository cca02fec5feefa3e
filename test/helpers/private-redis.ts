import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A private `redis-server` on a random loopback port, without persistence: it can be killed and restarted. */
export interface PrivateRedis extends AsyncDisposable {
  readonly port: number;
  readonly url: string;
  /** The running server's process id (undefined while stopped). */
  readonly pid: number | undefined;
  /** SIGKILL: gone at once, as a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** True when a `redis-server` binary is on the PATH. */
export async function haveRedisServer(): Promise<boolean> {
  const child = spawn('redis-server', ['--version'], { stdio: 'ignore' });
  const [code] = (await Promise.race([once(child, 'exit'), once(child, 'error').then(() => [1])])) as [
    number | null,
  ];
  return code === 0;
}

/** A free loopback port in 30000-39999 (the machine's own services live elsewhere). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 30_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} after ${ms} ms`);
    await sleep(25);
  }
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitForPort(port, 5000);
  };
  const kill = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (c && c.exitCode === null && c.signalCode === null) {
      const exited = once(c, 'exit');
      c.kill('SIGKILL');
      await exited;
    }
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid;
    },
    kill,
    start,
    close: kill,
    [Symbol.asyncDispose]: kill,
  };
}
