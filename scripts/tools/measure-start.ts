/**
 * `npm run measure:start`: starts the server as `npm start` does, on embedded defaults (PGlite in a fresh data
 * directory, in-process stores, the fixture chain node), and prints the time until /health answers 200 and the
 * resident memory (RSS) once idle, for a first start (empty data directory) and a second one (same directory).
 * `-- --json` prints one JSON line instead; `-- --write` also writes the figures into docs/performance.md.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeMarkedBlock } from '../lib/marked-block.js';
import { npmStartArgs as startArgs } from './lib/npm-start.js';

const MEASURE_START = '<!-- measure-start (written by npm run measure:start -- --write; do not edit) -->';
const MEASURE_END = '<!-- /measure-start -->';

/** How long the server is left idle before its RSS is read. */
const IDLE_MS = 3000;

const ROOT = path.resolve(import.meta.dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
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

/** RSS of a process and its descendants (the server may run PGlite's initdb in a child), in MB. */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

interface StartFigures {
  startMs: number;
  rssMb: number;
}

async function measure(dataDir: string): Promise<StartFigures> {
  const port = await freePort();
  const t0 = Date.now();
  const child = spawn(process.execPath, await startArgs(), {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? tmpdir(),
      PORT: String(port),
      PGLITE_DATA_DIR: path.join(dataDir, 'pglite'),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  try {
    while (!(await healthy(port))) {
      if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
      if (Date.now() - t0 > 120_000) throw new Error('not healthy after 120 s');
      await sleep(25);
    }
    const startMs = Date.now() - t0;
    await sleep(IDLE_MS);
    return { startMs, rssMb: await rssMb(child.pid ?? 0) };
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'measure-start-'));
try {
  const first = await measure(dataDir);
  const second = await measure(dataDir);
  const figures = { first, second, cores: availableParallelism(), node: process.version };
  if (process.argv.includes('--json')) console.log(JSON.stringify(figures));
  else {
    console.log(`npm start on embedded defaults (${figures.cores} cores, Node ${figures.node}):`);
    console.log(
      `  first start (empty data directory): healthy in ${first.startMs} ms, idle RSS ${first.rssMb} MB`,
    );
    console.log(
      `  second start (same directory):      healthy in ${second.startMs} ms, idle RSS ${second.rssMb} MB`,
    );
  }
  if (process.argv.includes('--write')) {
    const line =
      `\`npm start\` on embedded defaults: first start (empty data directory) healthy in **${(first.startMs / 1000).toFixed(1)} s**, ` +
      `idle RSS **${first.rssMb} MB**; second start **${(second.startMs / 1000).toFixed(1)} s**, **${second.rssMb} MB**. ` +
      `Measured by \`npm run measure:start -- --write\` on ${new Date().toISOString().slice(0, 10)}, ${figures.cores} cores, Node ${figures.node}.`;
    await writeMarkedBlock(path.join(ROOT, 'docs/performance.md'), MEASURE_START, MEASURE_END, line);
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
