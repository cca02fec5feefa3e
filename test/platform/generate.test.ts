import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGenerated, GENERATOR_STEPS, generateInto } from '../../scripts/generator.js';

// The generator runs once for the whole suite, here, into a temporary directory; both checks compare
// against that one output. (`.ci/run` runs the CLI itself: `npm run generate -- --check`.)
const temps: string[] = [];
let fresh: string;
beforeAll(async () => {
  fresh = await mkdtemp(path.join(tmpdir(), 'generated-'));
  temps.push(fresh);
  await generateInto(fresh);
}, 120_000);
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

describe('npm run generate -- --check', () => {
  it('runs one step per source kind, each naming its sources', () => {
    expect(GENERATOR_STEPS.map((s) => s.name)).toEqual(['openapi', 'proto', 'menus']);
    for (const step of GENERATOR_STEPS) expect(step.sources.length).toBeGreaterThan(0);
  });

  it('passes when generated/ is what the sources produce (determinism: a rerun is byte-identical)', async () => {
    expect(await checkGenerated('generated', fresh)).toEqual({
      ok: true,
      stdout: 'generated/ is up to date.\n',
      stderr: '',
    });
  });

  it('fails with a readable diff and the command to run when a generated file is stale', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'stale-'));
    temps.push(dir);
    await cp('generated', dir, { recursive: true });
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"/health"', '"/healthz"'));
    await writeFile(path.join(dir, 'left-over.ts'), '// hand-written\n');
    const result = await checkGenerated(dir, fresh);
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain('changed: openapi.json');
    expect(result.stderr).toContain('not generated any more: left-over.ts');
    expect(result.stderr).toMatch(/^[-+].*"\/healthz?"/m);
    expect(result.stderr).toContain('Run `npm run generate` and commit generated/.');
  });
});
