import { describe, expect, it } from 'vitest';
import { menuTree, type MenuTree } from '../../generated/menus.js';
import { freshCursor, type Cursor, type Notice } from '../../server/ussd/engine/cursor.js';
import { SCREEN_MAX, screenLength } from '../../lib/ussd/screen-layout.js';
import { renderReply } from '../../server/ussd/engine/render-screen.js';
import { fillTemplate } from '../../server/ussd/engine/templates.js';

/** Every placeholder at its longest, made of a wide letter. */
const worstParams = (tree: MenuTree): Record<string, string> =>
  Object.fromEntries(Object.entries(tree.placeholders).map(([k, n]) => [k, 'W'.repeat(n)]));

/** No notice, the engine's own one, and every notice of the menus. */
const notices = (tree: MenuTree, params: Record<string, string>): (Notice | undefined)[] => [
  undefined,
  { key: 'invalidChoice', system: true, params },
  ...Object.keys(tree.notices).map((key) => ({ key, system: false, params })),
];

/**
 * Renders every page of every screen of the real menus, in every language, for both audiences, with a
 * history (so `0. Back` shows), every placeholder at its longest and every notice in front: the whole reply
 * must fit the handset. This is what the generator promises; here the engine's real rendering is measured.
 */
function everyReply(tree: MenuTree): { where: string; reply: string }[] {
  const params = worstParams(tree);
  const out: { where: string; reply: string }[] = [];
  for (const [id, node] of Object.entries(tree.nodes)) {
    for (const lang of Object.keys(tree.languages)) {
      if (node.kind === 'end') {
        out.push({
          where: `${id}/${lang}`,
          reply: `END ${fillTemplate(node.text[lang] ?? '', params, tree.placeholders)}`,
        });
        continue;
      }
      if (node.kind === 'action') continue;
      for (const isAuthenticated of [false, true]) {
        const pageCount =
          node.kind === 'menu'
            ? (node.pages[lang]?.[isAuthenticated ? 'authenticated' : 'anonymous'].length ?? 0)
            : node.kind === 'info'
              ? (node.pages[lang]?.length ?? 0)
              : 1;
        for (let page = 0; page < pageCount; page++) {
          for (const notice of notices(tree, params)) {
            const cursor: Cursor = {
              ...freshCursor(tree, lang),
              node: id,
              page,
              params,
              isAuthenticated,
              history: [{ node: tree.start, params: {} }],
              notice,
            };
            const where = `${id}/${lang}/${isAuthenticated ? 'auth' : 'anon'}/page ${page}/${notice?.key ?? '-'}`;
            out.push({ where, reply: renderReply(tree, cursor).reply });
          }
        }
      }
    }
  }
  for (const lang of Object.keys(tree.languages))
    out.push({ where: `goodbye/${lang}`, reply: `END ${tree.system.goodbye[lang]}` });
  return out;
}

describe('every screen of the real menus fits 182 characters', () => {
  const replies = everyReply(menuTree);

  it('renders a reply for every screen, page, language, audience and notice', () => {
    expect(replies.length).toBeGreaterThan(500);
    expect(replies.some((r) => r.where.startsWith('aboutService/sw/anon/page 2/'))).toBe(true);
  });

  it('no reply is longer than SCREEN_MAX, notices and worst-case placeholders included', () => {
    const tooLong = replies
      .filter((r) => screenLength(r.reply) > SCREEN_MAX)
      .map((r) => `${r.where}: ${screenLength(r.reply)}`);
    expect(tooLong).toEqual([]);
  });

  it('the limit is the USSD one and the measure is tight: some screen uses at least 170 characters', () => {
    expect(SCREEN_MAX).toBe(182);
    expect(Math.max(...replies.map((r) => screenLength(r.reply)))).toBeGreaterThanOrEqual(170);
  });
});
