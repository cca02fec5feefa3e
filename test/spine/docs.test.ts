import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const readme = await readFile('README.md', 'utf8');

describe('README.md', () => {
  it('the README opens with the two commands of a fresh machine', () => {
    const quickStart = readme.slice(0, readme.indexOf('## Configuration'));
    expect(quickStart).toContain('npm install');
    expect(quickStart).toContain('npm start');
    expect(quickStart).toContain('npm test');
  });
});
