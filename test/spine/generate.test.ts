import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const tsx = path.resolve('node_modules/.bin/tsx');
const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function check(against: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(tsx, ['scripts/generate.ts', '--check', '--against', against]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run generate -- --check', () => {
  it('passes when generated/ is what the sources produce (determinism: a rerun is byte-identical)', async () => {
    const result = await check('generated');
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toContain('generated/ is up to date.');
  }, 120_000);

  it('fails with a readable diff and the command to run when a generated file is stale', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'stale-'));
    temps.push(dir);
    await cp('generated', dir, { recursive: true });
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"/health"', '"/healthz"'));
    await writeFile(path.join(dir, 'left-over.ts'), '// hand-written\n');
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('changed: openapi.json');
    expect(result.stderr).toContain('not generated any more: left-over.ts');
    expect(result.stderr).toMatch(/^[-+].*"\/healthz?"/m);
    expect(result.stderr).toContain('Run `npm run generate` and commit generated/.');
  }, 120_000);
});
