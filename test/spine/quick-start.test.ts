import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

// The README's quick start: `npm start` on embedded defaults (PGlite on disk, in-process stores, fixture
// chain node) answers /health with the database connected, and SIGTERM shuts it down cleanly.
it('npm start serves /health on embedded defaults and exits 0 on SIGTERM', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'quick-start-'));
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), PGLITE_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  delete env['DATABASE_URL'];
  delete env['REDIS_URL'];
  delete env['NODE_ENV'];
  const child = spawn('npm', ['start', '--silent'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  try {
    let health: { status: number; body: unknown } | undefined;
    for (let i = 0; i < 120 && !health; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (res) health = { status: res.status, body: await res.json() };
    }
    expect(health, output).toBeDefined();
    expect(health?.status).toBe(200);
    expect(health?.body).toMatchObject({ status: 'ok', database: 'connected', environment: 'development' });
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code, output).toBe(0);
    expect(output).toContain('shutting down');
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
}, 90_000);
