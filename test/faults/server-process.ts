import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The server as a child process, started the way `npm start` starts it (node, tsx, server/main.ts) with only
 * the environment given (plus PATH and HOME), its output appended to `log`. It can be signalled and started
 * again on the same port.
 */
export class ServerProcess {
  child: ChildProcess | undefined;
  exited: Promise<unknown> = Promise.resolve();
  constructor(
    readonly port: number,
    readonly env: Record<string, string>,
    readonly log: NodeJS.WritableStream,
  ) {}

  /** True while the process runs. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts it; resolves with the time until `/health` answered 200. */
  async start(): Promise<number> {
    const t0 = Date.now();
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'server/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(this.log, { end: false });
    child.stderr.pipe(this.log, { end: false });
    this.child = child;
    this.exited = once(child, 'exit');
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited at start (code ${child.exitCode})`);
      const ok = await new Promise<boolean>((resolve) => {
        http
          .get({ host: '127.0.0.1', port: this.port, path: '/health', agent: false }, (res) => {
            res.resume();
            resolve(res.statusCode === 200);
          })
          .on('error', () => resolve(false));
      });
      if (ok) return Date.now() - t0;
      if (Date.now() - t0 > 60_000) throw new Error('the server did not become healthy within 60 s');
      await sleep(50);
    }
  }

  /** Sends `signal` and resolves with the time the process took to exit. */
  async signal(signal: NodeJS.Signals): Promise<number> {
    const t0 = Date.now();
    if (this.running) this.child?.kill(signal);
    await this.exited;
    return Date.now() - t0;
  }
}
