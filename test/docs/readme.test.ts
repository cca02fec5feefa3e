import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { linksOf } from '../../scripts/tools/lib/markdown-doc.js';

const readme = await readFile('README.md', 'utf8');

// Issue 38: the README is a front door: short, the two commands first, one link per kind of newcomer.
describe('the README as a front door', () => {
  it('is at most 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('opens with the two commands of a fresh machine', () => {
    const quickStart = readme.split('\n## Quick start\n')[1]?.split('\n## ')[0] ?? '';
    expect(quickStart).toContain('npm install');
    expect(quickStart).toContain('npm start');
    expect(quickStart).toContain('npm test');
  });

  it('starts each newcomer path from one link', () => {
    const targets = linksOf(readme).map((l) => l.target);
    for (const page of ['docs/menus.md', 'docs/operating.md', 'sdk/README.md', 'docs/api-clients.md']) {
      expect(targets, page).toContain(page);
    }
  });

  it('shows the spine as the picture drawn from its text source', () => {
    expect(linksOf(readme).map((l) => l.target)).toContain('docs/spine.svg');
  });
});
