import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../helpers/db.js';
import { statusOf, untilServing } from '../helpers/child-server.js';
import { freePort } from '../helpers/private-redis.js';

// Issue 14 item 7, the first hour of a new user, shown by starting the server as a user would.

const ROOT = path.resolve(import.meta.dirname, '../..');
/**
 * Each of these tests cold-starts a whole server on a new embedded database (initdb in a child process), three
 * side by side: about 8 s each on a quiet 2-core machine, 25-30 s while other suites share the cores.
 */
const COLD_START_TIMEOUT_MS = 90_000;

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A user's machine: a database and a data directory of its own, removed at the end. */
interface Machine extends AsyncDisposable {
  database: ThrowawayDatabase;
  /** What a user's shell would have: no test variables, the repo's defaults, this machine's database. */
  env(extra: Record<string, string>): NodeJS.ProcessEnv;
}

async function newMachine(): Promise<Machine> {
  const database = await createThrowawayDatabase('first_hour');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'first-hour-'));
  return {
    database,
    env: (extra) => ({
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? tmpdir(),
      ENABLED_PARTS: 'chain',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...database.env,
      ...extra,
    }),
    async [Symbol.asyncDispose]() {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

// Each test is a machine of its own: the servers start side by side.
describe.concurrent('npm start, stopped as a user stops it', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(
      `${signal} to the npm process no longer leaves the node server running with the port held`,
      async () => {
        await using machine = await newMachine();
        const port = await freePort();
        const npm = spawn('npm', ['start', '--silent'], {
          cwd: ROOT,
          env: machine.env({ PORT: String(port) }),
          stdio: 'ignore',
        });
        try {
          await untilServing(port, npm);
          if (signal === 'SIGTERM' && machine.database.exclusive) {
            // Idle RSS of the embedded default (issue 14: it was about 910 MB): the node process npm runs.
            await sleep(2000);
            const children = await readFile(`/proc/${npm.pid}/task/${npm.pid}/children`, 'utf8');
            const server = Number(children.trim().split(/\s+/)[0]);
            const status = await readFile(`/proc/${server}/status`, 'utf8');
            const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
            expect(rssMb).toBeGreaterThan(0);
            expect(rssMb).toBeLessThanOrEqual(300);
          }
          const exited = once(npm, 'exit');
          const t0 = Date.now();
          npm.kill(signal);
          await exited;
          // The server behind npm is gone too: nothing answers and the port is free again.
          const deadline = Date.now() + 10_000;
          while (!(await portFree(port)) && Date.now() < deadline) await sleep(100);
          expect(await portFree(port)).toBe(true);
          expect(await statusOf(port, '/health')).toBeUndefined();
          expect(Date.now() - t0).toBeLessThan(10_000);
        } finally {
          npm.kill('SIGKILL');
        }
      },
      COLD_START_TIMEOUT_MS,
    );
  }
});

describe.concurrent('configuration as a new user meets it', () => {
  it(
    '.env in the working directory is read at start, and the real environment wins over it',
    async () => {
      await using machine = await newMachine();
      const cwd = await mkdtemp(path.join(tmpdir(), 'dotenv-'));
      const port = await freePort();
      await writeFile(
        path.join(cwd, '.env'),
        [`PORT=${port}`, 'CHAIN_ROUTE_PREFIX=fromdotenv', 'CHAIN_LEGACY_PREFIXES=alsofromdotenv', ''].join(
          '\n',
        ),
      );
      const tsx = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
      const child = spawn(process.execPath, ['--import', tsx, path.join(ROOT, 'server/main.ts')], {
        cwd,
        env: machine.env({ CHAIN_ROUTE_PREFIX: 'fromenv' }),
        stdio: 'ignore',
      });
      try {
        await untilServing(port, child);
        const get = (p: string) =>
          new Promise<number>((resolve) => {
            http.get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            });
          });
        expect(await get('/fromenv/token/params')).toBe(200);
        expect(await get('/alsofromdotenv/token/params')).toBe(200);
        expect(await get('/fromdotenv/token/params')).toBe(404);
      } finally {
        // A server that already exited (its port taken by another test's server between freePort and its
        // listen, say) emits no second 'exit': waiting for one hung the test past its timeout and hid the failure.
        if (child.exitCode === null && child.signalCode === null) {
          const exited = once(child, 'exit');
          child.kill('SIGTERM');
          await exited;
        }
        await rm(cwd, { recursive: true, force: true });
      }
    },
    COLD_START_TIMEOUT_MS,
  );

  it('PORT="" means the default port', () => {
    expect(loadConfig({ PORT: '' }).PORT).toBe(3000);
    expect(loadConfig({ PORT: '8080' }).PORT).toBe(8080);
  });
});
