import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../server/db/migrations/index.js';
import { createThrowawayDatabase } from '../helpers/db.js';

// Issue 27: the operator tools see exactly the server's configuration. Run in a directory of their own with a
// `.env` and nothing else in the environment: `npm run db:migrate` and `npm run ussd:unlock` migrated and
// searched a fresh embedded database while the server used the PostgreSQL of `.env`.

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const run = promisify(execFile);
const COUNT = Object.keys(migrations).length;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a tool from a working directory whose `.env` holds `dotEnv`, with no other configuration. */
async function tool(script: string, args: string[], cwd: string): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', TSX, path.join(ROOT, 'scripts/tools', script), ...args],
      { cwd, env: { PATH: process.env['PATH'], HOME: process.env['HOME'] } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function directoryWith(dotEnv: Record<string, string>): Promise<string> {
  const cwd = await mkdtemp(path.join(tmpdir(), 'tool-env-'));
  await writeFile(
    path.join(cwd, '.env'),
    Object.entries(dotEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
  return cwd;
}

// Each tool run starts Node, tsx and the database: up to several seconds each on a busy machine.
describe.concurrent('operator tools read .env as npm start does', { timeout: 120_000 }, () => {
  it('npm run db:migrate migrates the database .env names, says which, and is a no-op the second time', async () => {
    await using database = await createThrowawayDatabase('tools_migrate');
    const cwd = await directoryWith({ NODE_ENV: 'test', DATA_DIR: './data', ...database.env });
    try {
      const where = database.url
        ? `PostgreSQL ${database.url}`
        : `embedded PGlite in ${database.env['PGLITE_DATA_DIR']}`;
      const first = await tool('db-migrate.ts', [], cwd);
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(first.stdout.split('\n')[0]).toBe(
        `Database: ${where} (NODE_ENV=test; read ${path.join(cwd, '.env')})`,
      );
      expect(first.stdout).toContain(`Success  ${Object.keys(migrations)[0]}\n`);
      expect(first.stdout).toContain(`\n${COUNT} migration(s) applied.\n`);
      const second = await tool('db-migrate.ts', [], cwd);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain(
        `Nothing to migrate: the database is up to date (${COUNT} migrations).`,
      );
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('refuses the embedded database in production, naming the variable and where the configuration came from', async () => {
    const cwd = await directoryWith({
      NODE_ENV: 'production',
      ENABLED_PARTS: 'chain',
      CHAIN_GRPC_URL: 'fixture',
    });
    try {
      for (const [script, args, code] of [
        ['db-migrate.ts', [], 1],
        ['ussd-unlock.ts', ['C22222222'], 3],
      ] as const) {
        const outcome = await tool(script, [...args], cwd);
        expect(outcome.code).toBe(code);
        expect(outcome.stdout).toBe('');
        expect(outcome.stderr).toContain('DATABASE_URL (production does not run on the embedded PGlite)');
        expect(outcome.stderr).toContain(
          `(the configuration of \`npm start\`: the environment and ${path.join(cwd, '.env')})`,
        );
      }
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('npm run ussd:unlock exits 3 on a database that is not migrated (it said "relation customers does not exist" and exited 1, "unknown customer")', async () => {
    await using database = await createThrowawayDatabase('tools_unlock');
    const cwd = await directoryWith({ NODE_ENV: 'test', DATA_DIR: './data', ...database.env });
    try {
      const unmigrated = await tool('ussd-unlock.ts', ['C22222222'], cwd);
      expect(unmigrated.code).toBe(3);
      expect(unmigrated.stdout).toMatch(/^Database: /);
      expect(unmigrated.stderr).toMatch(
        new RegExp(
          `^The database has ${COUNT} migration\\(s\\) pending \\(.+\\): is this the server's database\\? Run \`npm run db:migrate\``,
        ),
      );
      expect((await tool('db-migrate.ts', [], cwd)).code).toBe(0);
      const unknown = await tool('ussd-unlock.ts', ['C22222222'], cwd);
      expect(unknown).toMatchObject({ code: 1, stderr: '' });
      expect(unknown.stdout).toMatch(/^Database: .+\nNo customer C22222222\.\n$/);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
