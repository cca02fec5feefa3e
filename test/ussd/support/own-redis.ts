import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';

/** A redis-server of a test's own, on a random port, with nothing persisted: faults are injected into it. */
export interface OwnRedis extends AsyncDisposable {
  readonly port: number;
  readonly url: string;
  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
}

/** True when a `redis-server` binary is on the PATH. */
export async function hasRedisServer(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('redis-server', ['--version'], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

function launch(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server on ${port} did not start: ${out}`));
    }, 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server on ${port} exited with ${code}: ${out}`));
    });
  });
}

/**
 * Starts `redis-server --port <random 20000-29999> --save '' --appendonly no` (never the machine's Redis on
 * 6379), and stops it by its own PID when disposed.
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  let port = randomInt(20_000, 30_000);
  let child: ChildProcess | undefined;
  for (let attempt = 0; child === undefined; attempt++) {
    try {
      child = await launch(port);
    } catch (err) {
      if (attempt >= 3) throw err;
      port = randomInt(20_000, 30_000);
    }
  }
  let current: ChildProcess | undefined = child;
  const kill = async (): Promise<void> => {
    const running = current;
    current = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    async restart() {
      await kill();
      current = await launch(port);
    },
    [Symbol.asyncDispose]: kill,
  };
}
