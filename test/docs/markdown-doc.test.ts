import { describe, expect, it } from 'vitest';
import {
  anchorsOf,
  codeBlocksOf,
  datedProseOf,
  githubSlug,
  linksOf,
  npmScriptsOf,
} from '../../scripts/tools/lib/markdown-doc.js';

// What `npm run check:docs` reads in a page (scripts/tools/lib/markdown-doc.ts).

describe('the docs checker reads a page as GitHub does', () => {
  it('makes the anchors GitHub makes', () => {
    expect(githubSlug('Against `npm start` in five minutes')).toBe('against-npm-start-in-five-minutes');
    expect(githubSlug('Config (`useOraclesConfig(oracleDid, overrides?)`)')).toBe(
      'config-useoraclesconfigoracledid-overrides',
    );
    expect(githubSlug('Moving from @ixo/oracles-client-sdk 1.4.0')).toBe(
      'moving-from-ixooracles-client-sdk-140',
    );
    expect(githubSlug('Runs and re-joining')).toBe('runs-and-re-joining');
    expect(githubSlug('A [linked](x.md) heading_with_underscores')).toBe('a-linked-heading_with_underscores');
    expect(githubSlug('Schlüssel & Größe')).toBe('schlüssel--größe');
  });

  it('numbers a repeated heading and ignores headings inside code', () => {
    const page = '# Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n\n<a id="custom"></a>\n';
    expect([...anchorsOf(page)].sort()).toEqual(['custom', 'notes', 'notes-1']);
  });

  it('finds links outside code only', () => {
    const page = [
      'See [testing](docs/testing.md#mutation-testing) and ![spine](docs/spine.svg).',
      'Not `[this](nowhere.md)`, nor:',
      '```md',
      '[that](nowhere.md)',
      '```',
      '[web](https://example.org) [here](#top)',
    ].join('\n');
    expect(linksOf(page)).toEqual([
      { target: 'docs/testing.md#mutation-testing', line: 1 },
      { target: 'docs/spine.svg', line: 1 },
      { target: 'https://example.org', line: 6 },
      { target: '#top', line: 6 },
    ]);
  });

  it('finds the npm scripts a page names, with their workspace', () => {
    const page =
      'Run `npm run generate`.\n\n```sh\neval "$(npm run -s oracle:token)"\nnpm run build -w sdk\n```';
    expect(npmScriptsOf(page)).toEqual([
      { script: 'generate', line: 1 },
      { script: 'oracle:token', line: 4 },
      { script: 'build', workspace: 'sdk', line: 5 },
    ]);
  });

  it('marks a block runnable only right after the marker', () => {
    const page = [
      '<!-- runnable -->',
      '',
      '```sh',
      'curl localhost:3000/health',
      '```',
      '```sh',
      'npm start',
      '```',
      'Text.',
      '```sh',
      'echo',
      '```',
    ].join('\n');
    expect(codeBlocksOf(page).map((b) => [b.line, b.runnable, b.text])).toEqual([
      [3, true, 'curl localhost:3000/health'],
      [6, false, 'npm start'],
      [10, false, 'echo'],
    ]);
  });

  it('finds a date typed in prose, not one a script wrote between markers or one in code', () => {
    const page = [
      'Measured on 2026-11-27 on a quiet machine.',
      '<!-- bench-figures (written by npm run bench -- --full --write; do not edit) -->',
      '| figure | 0.77 | 2026-11-28 |',
      '<!-- /bench-figures -->',
      '<!-- mutation-scores:start (written by npm run test:mutation; do not edit) -->',
      '| ussd-session | 82.2 % | 2026-11-27 |',
      '<!-- mutation-scores:end -->',
      'An example: `{"updatedAt":"2026-11-23T15:00:00.000Z"}`.',
      '```json',
      '{"createdAt": "2026-11-01"}',
      '```',
    ].join('\n');
    expect(datedProseOf(page)).toEqual([{ line: 1, date: '2026-11-27' }]);
    expect(
      datedProseOf('<!-- Written by npm run test:mutation; do not edit. -->\n\nRun on 2026-11-29.'),
    ).toEqual([]);
  });
});
