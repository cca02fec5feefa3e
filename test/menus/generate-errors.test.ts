import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMenus } from '../../scripts/menus/generate-menus.js';

const FIXTURES = 'test/fixtures/menus';
const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function failure(menusDir: string): Promise<string> {
  const outDir = await mkdtemp(path.join(tmpdir(), 'menus-err-'));
  temps.push(outDir);
  const error = await generateMenus({ menusDir, outDir }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(Error);
  // Nothing is written when the menus are wrong.
  expect(await readdir(outDir)).toEqual([]);
  return (error as Error).message;
}

const errorCases = (await readdir(FIXTURES)).filter((d) => d.startsWith('error-')).sort();

describe('generateMenus refuses wrong menus, naming file, node and line', () => {
  it('has one failing fixture per check', () => {
    expect(errorCases).toEqual([
      'error-action-without-next',
      'error-all-at-once',
      'error-duplicate-key',
      'error-duplicate-node',
      'error-end-too-long',
      'error-many',
      'error-missing-notice',
      'error-missing-translation',
      'error-near-miss',
      'error-next-list-without-action',
      'error-no-start',
      'error-notice-too-long',
      'error-option-too-long',
      'error-pattern-does-not-compile',
      'error-pattern-unmatchable',
      'error-placeholder-gap',
      'error-prompt-too-long',
      'error-range',
      'error-reserved-key',
      'error-secret-shown',
      'error-text-answer-too-long',
      'error-text-too-long',
      'error-text-without-max-length',
      'error-undeclared-placeholder',
      'error-unknown-field',
      'error-unknown-next',
      'error-unreachable',
      'error-word-too-long',
      'error-yaml-colon-in-text',
      'error-yaml-indent',
      'error-yaml-indent-after-value',
      'error-yaml-missing-colon',
      'error-yaml-unclosed-quote',
    ]);
  });

  it.each(errorCases)('%s: the message is exactly expected-error.txt', async (name) => {
    const expected = (await readFile(path.join(FIXTURES, name, 'expected-error.txt'), 'utf8')).trimEnd();
    expect(await failure(path.join(FIXTURES, name))).toBe(expected);
  });

  it('unknown next: the example of the issue, to the letter', async () => {
    expect(await failure(path.join(FIXTURES, 'error-unknown-next'))).toBe(
      'test/fixtures/menus/error-unknown-next/main.yaml:11 node "preMenu": next "pinConfirm" does not exist',
    );
  });

  it('collects every problem and reports them all, sorted by file and line', async () => {
    expect((await failure(path.join(FIXTURES, 'error-many'))).split('\n')).toEqual([
      'test/fixtures/menus/error-many/main.yaml:9 node "preMenu": key "1" is used twice (also option 1)',
      'test/fixtures/menus/error-many/main.yaml:11 node "preMenu": next "nowhere" does not exist',
      'test/fixtures/menus/error-many/main.yaml:12 node "preMenu": key "0" is reserved for Back',
      'test/fixtures/menus/error-many/main.yaml:20 node "orphan": not reachable from preMenu',
    ]);
  });

  it('reports every problem of every stage in one run: a node that cannot be read hides no other', async () => {
    const lines = (await failure(path.join(FIXTURES, 'error-all-at-once'))).split('\n');
    expect(lines.map((l) => l.replace(/^.*main\.yaml:\d+ /, ''))).toEqual([
      'node "preMenu": key "98" is reserved for More',
      'node "preMenu": next "nowhere" does not exist',
      'node "broken": text: missing translation "sw"',
      expect.stringMatching(
        /^node "long": option 1, label\.en: a page with only this option is \d+ characters/,
      ),
    ]);
  });

  it('says "did you mean" for a near miss, and marks what only follows from it as a consequence', async () => {
    const message = await failure(path.join(FIXTURES, 'error-near-miss'));
    expect(message).toContain('next "pinConfim" does not exist (did you mean "pinConfirm"?)');
    expect(message).toContain(
      'main.yaml:20 node "pinConfirm": not reachable from preMenu (a consequence of test/fixtures/menus/error-near-miss/main.yaml:12)',
    );
    expect(message).toContain('unknown field "sav" (did you mean "save"?)');
    expect(message).toContain('(did you mean "info"?)');
    expect(message).toContain(
      'placeholder {whoo} is not declared under placeholders: (with its longest length), nor saved by an input (save: whoo) (did you mean "who"?)',
    );
  });

  it('reports YAML syntax errors and duplicate keys with their line', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'menus-yaml-'));
    temps.push(dir);
    await writeFile(
      path.join(dir, 'a.yaml'),
      'nodes:\n  preMenu:\n    type: menu\n  preMenu:\n    type: info\n',
    );
    await writeFile(path.join(dir, 'b.yaml'), 'languages: [en\n');
    const lines = (await failure(dir)).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^.*\/a\.yaml:4 YAML: this field is written twice in the same place: keep one$/);
    expect(lines[1]).toMatch(/^.*\/b\.yaml:2 YAML: /);
  });

  it('refuses an empty menus directory', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'menus-empty-'));
    temps.push(dir);
    expect(await failure(dir)).toMatch(/: no \.yaml menu files$/);
  });
});
