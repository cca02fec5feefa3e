import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkDocuments } from '../../scripts/generator.js';
import { CONFIG_SECTIONS, loadConfig } from '../../server/config.js';

const envExample = await readFile('.env.example', 'utf8');

const variables = CONFIG_SECTIONS.flatMap((s) => Object.keys(s.schema.shape)).sort();

/** What `set -a; . <file>` in sh puts in the environment, among the configuration's variables. */
async function sourced(text: string): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'env-example-'));
  try {
    const file = path.join(dir, 'env');
    await writeFile(file, text);
    const out = execFileSync('sh', ['-c', 'set -a; . "$1"; env -0', 'sh', file], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });
    const entries = out
      .split('\0')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const)
      .filter(([name]) => variables.includes(name));
    return Object.fromEntries(entries);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('docs/configuration.md and .env.example, generated from the configuration schemas', () => {
  it('are what `npm run generate` writes from the schemas now', async () => {
    const report = await checkDocuments();
    expect(report.stderr).toBe('');
    expect(report.ok).toBe(true);
  });

  it('.env.example names every variable once, commented out, so sh sources it and sets nothing', async () => {
    const names = [...envExample.matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(names.sort()).toEqual(variables);
    expect(Object.keys(parseEnv(envExample))).toEqual([]);
    expect(await sourced(envExample)).toEqual({});
  });

  it('.env.example with every line uncommented reads the same in sh and in Node, and is the defaults', async () => {
    const uncommented = envExample.replace(/^# ([A-Z][A-Z0-9_]+=)/gm, '$1');
    const node = parseEnv(uncommented) as Record<string, string>;
    expect(Object.keys(node).sort()).toEqual(variables);
    expect(await sourced(uncommented)).toEqual(node);
    expect(loadConfig(node)).toEqual(loadConfig({}));
  });
});
