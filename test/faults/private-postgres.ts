import { execFile, spawn } from 'node:child_process';
import { chown, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/private-redis.js';

const run = promisify(execFile);

/** Where Debian puts the server binaries; PG_BIN overrides. */
const PG_BIN = process.env['PG_BIN'] ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL server of the fault suite's own: the machine's binaries, a temporary data directory, a random
 * port in 30000-39999, its socket in that directory. It can be stopped, started, paused (SIGSTOP on every one of
 * its processes) and resumed; the machine's own server is never touched.
 */
export interface PrivatePostgres {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  destroy(): Promise<void>;
}

/** initdb refuses to run as root: as root, the server runs as the `postgres` user, in a directory it owns. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function exec(command: string, args: string[]): Promise<void> {
  const [cmd, argv] = asServerUser(command, args);
  await run(cmd, argv, { maxBuffer: 16 * 1024 * 1024 });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const root = await mkdtemp(path.join(tmpdir(), 'faults-pg-'));
  const dataDir = path.join(root, 'data');
  await mkdir(dataDir, { mode: 0o700 });
  if (process.getuid?.() === 0) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    await chown(root, uid, gid);
    await chown(dataDir, uid, gid);
  }
  const port = await freePort();
  await exec(path.join(PG_BIN, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const start = (): Promise<void> =>
    exec(path.join(PG_BIN, 'pg_ctl'), [
      '-D',
      dataDir,
      '-o',
      options,
      '-l',
      path.join(root, 'log'),
      '-w',
      'start',
    ]);
  const stop = (): Promise<void> =>
    exec(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
  await start();
  await exec(path.join(PG_BIN, 'createdb'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-U',
    'postgres',
    'faults',
  ]);

  /** The postmaster and every process it started (read from /proc). */
  const processes = async (): Promise<number[]> => {
    const master = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const pids = [master];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      // Fields after the command name (which may contain spaces): state, ppid, …
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === master) pids.push(Number(entry));
    }
    return pids;
  };
  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    for (const pid of await processes()) {
      try {
        process.kill(pid, sig);
      } catch {
        // gone already
      }
    }
  };
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/faults`,
    stop,
    start,
    // The postmaster first, once it is stopped (state T) its children: it forks no backend while they are looked
    // for (a backend forked between the look and the postmaster's stop went on answering through the "pause").
    async pause() {
      const [master] = await processes();
      if (master) {
        process.kill(master, 'SIGSTOP');
        for (let i = 0; i < 100; i++) {
          const stat = await readFile(`/proc/${master}/stat`, 'utf8').catch(() => '');
          if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      await signal('SIGSTOP');
    },
    resume: () => signal('SIGCONT'),
    async destroy() {
      await signal('SIGCONT');
      await stop().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** True when this machine has the PostgreSQL server binaries. */
export async function havePostgresBinaries(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(path.join(PG_BIN, 'initdb'), ['--version'], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}
