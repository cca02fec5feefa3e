import fc from 'fast-check';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { CompiledInfo, CompiledMenu, MenuTree } from '../../generated/menus.js';
import { generateMenus } from '../../scripts/menus/generate-menus.js';
import { freshCursor } from '../../server/ussd/engine/cursor.js';
import { SCREEN_MAX, screenLength } from '../../lib/ussd/screen-layout.js';
import { renderReply } from '../../server/ussd/engine/render-screen.js';

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

const text = (en: string, sw = en): Record<string, string> => ({ en, sw });
const NOTICE = 'A notice of forty characters, like this.';

/** Writes a one-file menu, generates it, and reads the tree back from the generated file. */
async function compile(info: string, labels: string[]): Promise<MenuTree> {
  const dir = await mkdtemp(path.join(tmpdir(), 'menus-prop-'));
  temps.push(dir);
  const doc = {
    languages: { en: 'English', sw: 'Kiswahili' },
    system: {
      goodbye: text('Bye'),
      invalidChoice: text('Invalid choice.'),
      back: text('Back'),
      more: text('More'),
      exit: text('Exit'),
      skip: text('Skip'),
    },
    notices: { long: text(NOTICE) },
    nodes: {
      preMenu: {
        type: 'menu',
        title: text('Pick one'),
        options: [
          { key: 1, label: text('Read'), next: 'story' },
          ...labels.map((label, i) => ({ key: i + 2, label: text(label), next: 'story' })),
        ],
      },
      story: { type: 'info', text: text(info) },
    },
  };
  await writeFile(path.join(dir, 'menus.yaml'), stringify(doc));
  await generateMenus({ menusDir: dir, outDir: dir });
  const source = await readFile(path.join(dir, 'menus.ts'), 'utf8');
  const json = source.slice(source.indexOf('export const menuTree: MenuTree = ') + 34).replace(/;\n$/, '');
  return JSON.parse(json) as MenuTree;
}

const word = fc.stringMatching(/^[a-z]{1,14}[.,]?$/);
const words = fc.array(word, { minLength: 1, maxLength: 90 });
const label = fc
  .array(fc.stringMatching(/^[a-z]{1,10}$/), { minLength: 1, maxLength: 6 })
  .map((w) => w.join(' '));

describe('pagination planned at generate time', () => {
  it('splits any text at word boundaries and any menu between options, every page within 182 with the longest notice', async () => {
    await fc.assert(
      fc.asyncProperty(words, fc.array(label, { minLength: 0, maxLength: 14 }), async (ws, labels) => {
        const tree = await compile(ws.join(' '), labels);
        const story = tree.nodes['story'] as CompiledInfo;
        const menu = tree.nodes['preMenu'] as CompiledMenu;
        const pages = story.pages['en'] ?? [];
        // No word lost, split or reordered.
        expect(pages.join(' ').split(' ')).toEqual(ws);
        expect(pages.every((p) => p.trim() === p && p !== '')).toBe(true);
        const menuPages = menu.pages['en']?.anonymous ?? [];
        expect(menuPages.flat()).toEqual(menu.options.map((o) => o.key));
        const screens = [
          ...pages.map((_, page) => ({ node: 'story', page })),
          ...menuPages.map((_, page) => ({ node: 'preMenu', page })),
        ];
        for (const { node, page } of screens) {
          const cursor = {
            ...freshCursor(tree, 'en'),
            node,
            page,
            history: [{ node: 'preMenu', params: {} }],
          };
          const { reply } = renderReply(tree, {
            ...cursor,
            notice: { key: 'long', system: false, params: {} },
          });
          expect(screenLength(reply)).toBeLessThanOrEqual(SCREEN_MAX);
        }
        // A text that fits is one page; one that does not is several.
        const single = renderReply(tree, {
          ...freshCursor(tree, 'en'),
          node: 'story',
          history: [{ node: 'preMenu', params: {} }],
        });
        if (pages.length === 1) expect(single.reply).not.toContain('98. More');
        else expect(single.reply).toContain('\n98. More\n0. Back\n*. Exit');
      }),
      { numRuns: 25 },
    );
  });
});
