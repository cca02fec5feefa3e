import { infoScreen, menuScreen, SCREEN_MAX, screenLength } from '../../lib/ussd/screen-layout.js';
import type { ParsedNode, ParsedOption } from './file-schema.js';
import type { Location } from './locate.js';
import type { Located } from './load-model.js';
import type { MenuErrors } from './menu-errors.js';
import type { ScreenBudget } from './screen-budget.js';

/** Who sees a menu: options marked `when:` are shown to one audience only. */
export const AUDIENCES = ['anonymous', 'authenticated'] as const;
export type Audience = (typeof AUDIENCES)[number];

/** Option keys on each page of a menu, per audience. */
export type MenuPages = Record<Audience, string[][]>;

const limitNote = (b: ScreenBudget): string =>
  `(limit ${SCREEN_MAX} counting "CON " and room for the longest ${b.lang} notice, ${b.noticeMax} characters)`;

/**
 * Splits a menu's options over pages so every page fits with `98. More` and `0. Back`. Reports a page that
 * cannot fit even with a single option.
 */
export function planMenuPages(
  node: Located<Extract<ParsedNode, { type: 'menu' }>>,
  keys: readonly string[],
  budget: ScreenBudget,
  errors: MenuErrors,
): MenuPages {
  const { value: menu, loc } = node;
  const render = (options: readonly ParsedOption[], more: boolean): string =>
    menuScreen(
      {
        title: budget.worst(menu.title),
        options: options.map((o) => ({
          key: keys[menu.options.indexOf(o)] ?? o.key,
          label: budget.worst(o.label),
        })),
        more,
        back: true,
      },
      budget.labels,
    );
  const plan = (audience: Audience): string[][] => {
    const visible = menu.options.filter((o) => o.when === undefined || o.when === audience);
    const keyOf = (o: ParsedOption): string => keys[menu.options.indexOf(o)] ?? o.key;
    if (budget.fitsCon(render(visible, false))) return [visible.map(keyOf)];
    const pages: ParsedOption[][] = [];
    let page: ParsedOption[] = [];
    for (const option of visible) {
      if (!budget.fitsCon(render([option], true))) {
        const i = menu.options.indexOf(option);
        errors.atField(
          at(loc, 'options', i, 'label', budget.lang),
          `a page with only this option is ${budget.conLength(render([option], true))} characters ${limitNote(budget)}; shorten the title or the label`,
        );
        return [visible.map(keyOf)];
      }
      if (page.length > 0 && !budget.fitsCon(render([...page, option], true))) {
        pages.push(page);
        page = [];
      }
      page.push(option);
    }
    pages.push(page);
    return pages.map((p) => p.map(keyOf));
  };
  return { anonymous: plan('anonymous'), authenticated: plan('authenticated') };
}

/**
 * Splits an information text into pages so every page fits with `98. More` and `0. Back` (a
 * `{placeholder}` counts at its longest). Lines stay whole when they fit on a page; a line too long for
 * one page flows over pages at word boundaries. Page texts keep their placeholders.
 */
export function planInfoPages(
  node: Located<Extract<ParsedNode, { type: 'info' }>>,
  budget: ScreenBudget,
  errors: MenuErrors,
): string[] {
  const template = (node.value.text[budget.lang] ?? '').trim();
  const fits = (text: string, more: boolean): boolean =>
    budget.fitsCon(
      infoScreen({ text: budget.worst({ [budget.lang]: text }), more, back: true }, budget.labels),
    );
  if (fits(template, false)) return [template];
  const pages: string[] = [];
  let page = '';
  const flush = (): void => {
    if (page.trim() !== '') pages.push(page.trim());
    page = '';
  };
  for (const line of template.split('\n')) {
    if (page !== '' && fits(`${page}\n${line}`, true)) {
      page = `${page}\n${line}`;
      continue;
    }
    if (fits(line, true)) {
      flush();
      page = line;
      continue;
    }
    const parts = line.split(/( +)/);
    for (let i = 0; i < parts.length; i += 2) {
      const word = parts[i] ?? '';
      const separator = i === 0 ? '\n' : (parts[i - 1] ?? ' ');
      const candidate = page === '' ? word : `${page}${separator}${word}`;
      if (fits(candidate, true)) {
        page = candidate;
        continue;
      }
      if (!fits(word, true)) {
        const shown = word.length > 20 ? `${word.slice(0, 20)}…` : word;
        errors.atField(
          at(node.loc, 'text', budget.lang),
          `the word "${shown}" does not fit on a page ${limitNote(budget)}`,
        );
        return [template];
      }
      const [kept, carried] = splitAtSentence(page);
      const next = carried === '' ? '' : `${carried}${separator}${word}`;
      if (next !== '' && fits(next, true)) {
        page = kept;
        flush();
        page = next;
      } else {
        flush();
        page = word;
      }
    }
  }
  flush();
  return pages;
}

/**
 * Where a full page should end: after its last sentence, when that keeps at least half of it, so the
 * next page starts with a new sentence. Returns the part to keep and the part to carry over ('' for none).
 */
function splitAtSentence(page: string): [string, string] {
  const ends = [...page.matchAll(/[.!?:;] +/g)];
  const last = ends.at(-1);
  if (last?.index === undefined || last.index + 1 < page.length / 2) return [page, ''];
  return [page.slice(0, last.index + 1), page.slice(last.index + last[0].length)];
}

/** An input's prompt must fit on one screen (inputs are not paginated). */
export function checkInputScreen(
  node: Located<Extract<ParsedNode, { type: 'input' }>>,
  screen: string,
  budget: ScreenBudget,
  errors: MenuErrors,
): void {
  if (!budget.fitsCon(screen)) {
    errors.atField(
      at(node.loc, 'prompt', budget.lang),
      `the screen is ${budget.conLength(screen)} characters ${limitNote(budget)}; shorten the prompt`,
    );
  }
}

/** An `END` text must fit on one screen. */
export function checkEndText(text: string, loc: Location, budget: ScreenBudget, errors: MenuErrors): void {
  const length = budget.endLength(text);
  if (length > SCREEN_MAX) {
    errors.atField(
      at(loc, budget.lang),
      `the END screen is ${length} characters (limit ${SCREEN_MAX} counting "END "); shorten it`,
    );
  }
}

/** A notice must be short: it is shown in front of a whole screen. */
export function checkNotice(
  text: string,
  loc: Location,
  budget: ScreenBudget,
  errors: MenuErrors,
  max: number,
): void {
  const length = screenLength(text);
  if (length > max)
    errors.atField(at(loc, budget.lang), `a notice is at most ${max} characters; this one is ${length}`);
}

function at(loc: Location, ...path: (string | number)[]): Location {
  return { file: loc.file, path: [...loc.path, ...path] };
}
