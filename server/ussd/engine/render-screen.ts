import type { UssdReply } from '../../../contracts/ussd.js';
import type { MenuTree, Translated } from '../../../generated/menus.js';
import type { Cursor } from './cursor.js';
import {
  infoScreen,
  inputScreen,
  menuScreen,
  withNotice,
  type NavLabels,
} from '../../../lib/ussd/screen-layout.js';
import { canGoBack } from './navigate.js';
import { fillTemplate } from './templates.js';
import { nodeOf } from './turn.js';

/** The reply for where the cursor is: `END <text>` when the session ended, else `CON [notice\n\n]<screen>`. */
export function renderReply(tree: MenuTree, c: Cursor): { reply: UssdReply; message: string } {
  if (c.ended !== undefined) return { reply: `END ${c.ended}`, message: c.ended };
  // A screen shows what its action gave it, else the answers saved so far; a notice only its own values.
  const text = (
    t: Translated | undefined,
    params: Readonly<Record<string, string | undefined>> = c.params,
    saved: Readonly<Record<string, string>> | undefined = c.form,
  ): string => fillTemplate(t?.[c.lang] ?? '', params, tree.placeholders, saved);
  const labels: NavLabels = {
    back: text(tree.system.back),
    more: text(tree.system.more),
    exit: text(tree.system.exit),
    skip: text(tree.system.skip),
  };
  const node = nodeOf(tree, c.node);
  const back = canGoBack(c, node);
  let screen: string;
  switch (node.kind) {
    case 'menu': {
      const pages = node.pages[c.lang]?.[c.isAuthenticated ? 'authenticated' : 'anonymous'] ?? [];
      c.page = Math.min(c.page, Math.max(pages.length - 1, 0));
      const keys = pages[c.page] ?? [];
      const options = node.options
        .filter((o) => keys.includes(o.key))
        .map((o) => ({ key: o.key, label: text(o.label) }));
      const more = c.page < pages.length - 1;
      screen = menuScreen({ title: text(node.title), options, more, back: back || c.page > 0 }, labels);
      break;
    }
    case 'info': {
      const pages = node.pages[c.lang] ?? [];
      c.page = Math.min(c.page, Math.max(pages.length - 1, 0));
      const more = c.page < pages.length - 1;
      const page = fillTemplate(pages[c.page] ?? '', c.params, tree.placeholders, c.form);
      screen = infoScreen({ text: page, more, back: back || c.page > 0 }, labels);
      break;
    }
    case 'input':
      screen = inputScreen({ prompt: text(node.prompt), skip: node.optional, back }, labels);
      break;
    case 'action':
    case 'end':
      throw new Error(`node "${c.node}" (${node.kind}) is not a screen`);
  }
  const notice = c.notice;
  const noticeText =
    notice === undefined
      ? undefined
      : text(
          notice.system ? tree.system[notice.key as keyof MenuTree['system']] : tree.notices[notice.key],
          notice.params,
          undefined,
        );
  const message = withNotice(noticeText, screen);
  return { reply: `CON ${message}`, message };
}
