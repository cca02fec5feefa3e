// The server as users run it: package.json's `start` script, in a child process of its own, measured from
// outside through /proc (CPU time, resident memory), since a started server has no channel to the bench.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * package.json's `start` script in the checkout at `root`, as npm would run it (through `sh -c`), after its
 * `prestart` when it has one (the server's build), with an `exec` in front when it has none, so the child's
 * pid is the server's once it runs.
 */
export async function startScript(root = ROOT): Promise<string> {
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string; prestart?: string };
  };
  const start = pkg.scripts.start.startsWith('exec ') ? pkg.scripts.start : `exec ${pkg.scripts.start}`;
  return pkg.scripts.prestart ? `${pkg.scripts.prestart} && ${start}` : start;
}

export interface StartedServer {
  child: ChildProcess;
  url: string;
  /** The server process's user + system CPU time so far, in microseconds (10 ms resolution). */
  cpuMicros(): Promise<number>;
  /** The server process's resident set, in MB. */
  rssMb(): Promise<number>;
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on('error', () => resolve(false));
  });
}

/**
 * Starts `npm start`'s command (of the checkout at `root`, default this one) with `env` (on top of PATH and HOME only: nothing of the bench's own
 * environment leaks in) on a free port, and resolves once `/health` answers 200. The script must `exec` the
 * server, so the child's pid is the server's. Its output is read and dropped, as a log shipper would; the
 * last lines are kept for the error when it does not come up.
 */
export async function startProductionCommand(
  env: Record<string, string>,
  { execArgv = [] as string[], timeoutMs = 60_000, root = ROOT } = {},
): Promise<StartedServer> {
  const port = await freePort();
  let script = await startScript(root);
  // The flags go to the server's node (after the build of `prestart`, when there is one).
  if (execArgv.length > 0) script = script.replace(/(^|&& )exec node /, `$1exec node ${execArgv.join(' ')} `);
  const child = spawn('sh', ['-c', script], {
    cwd: root,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const keep = (chunk: Buffer): void => {
    tail.push(chunk.toString());
    if (tail.length > 20) tail.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const started = Date.now();
  while (!(await healthy(port))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`npm start did not become healthy:\n${tail.join('')}`);
    }
    await sleep(100);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error('npm start has no pid');
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    cpuMicros: async () => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces, inside parentheses): utime is the 14th field.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      return (ticks * 1e6) / TICKS_PER_SECOND;
    },
    rssMb: async () => {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
    },
  };
}
