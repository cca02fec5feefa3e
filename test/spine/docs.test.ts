import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { EnvSchema } from '../../server/config.js';

const readme = await readFile('README.md', 'utf8');
const envExample = await readFile('.env.example', 'utf8');
const declared = Object.keys(EnvSchema.shape).sort();

describe('configuration is documented once, everywhere', () => {
  it('the README configuration table lists exactly the variables of server/config.ts', () => {
    const section = readme.split('## Configuration')[1]?.split('\n## ')[0] ?? '';
    const rows = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(declared);
  });

  it('.env.example mentions exactly the variables of server/config.ts', () => {
    const names = [...envExample.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect([...new Set(names)].sort()).toEqual(declared);
  });

  it('the README opens with the two commands of a fresh machine', () => {
    const quickStart = readme.slice(0, readme.indexOf('## Configuration'));
    expect(quickStart).toContain('npm install');
    expect(quickStart).toContain('npm start');
    expect(quickStart).toContain('npm test');
  });
});
