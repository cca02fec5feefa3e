import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { npmStartArgs } from '../../scripts/tools/lib/npm-start.js';
import { freePort } from '../helpers/private-redis.js';

// The README's quick start: `npm start` on embedded defaults (PGlite on disk, in-process stores, fixture
// chain node) answers /health with the database connected, and SIGTERM shuts it down cleanly.
it('npm start serves /health on embedded defaults and exits 0 on SIGTERM', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'quick-start-'));
  const port = await freePort();
  // A fresh machine's environment: none of the test runner's variables (NODE_ENV, DATABASE_URL, …).
  const env = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    PORT: String(port),
    PGLITE_DATA_DIR: dataDir,
  };
  // Run what `npm start` runs, read from package.json, so the signal reaches the server itself (npm 11
  // re-raises a forwarded SIGTERM and so exits by signal whatever the server did).
  // (`exec` replaces npm's shell with node, so npm's forwarded signal reaches the server: first-hour.test.ts.)
  const args = await npmStartArgs();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  try {
    let health: { status: number; body: unknown } | undefined;
    for (let i = 0; i < 240 && !health; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (res) health = { status: res.status, body: await res.json() };
    }
    expect(health, output).toBeDefined();
    expect(health?.status).toBe(200);
    expect(health?.body).toMatchObject({ status: 'ok', database: 'connected', environment: 'development' });
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code, signal] = (await exited) as [number | null, string | null];
    expect({ code, signal }, output).toEqual({ code: 0, signal: null });
    expect(output).toContain('shutting down');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
}, 90_000);
