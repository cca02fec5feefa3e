/**
 * How every USSD screen is laid out. Pure functions, shared by the menu generator (which measures the
 * worst case of every screen at generate time) and the engine (which renders the real one), so what is
 * measured is exactly what is sent.
 */

/** The longest reply a handset shows, `CON `/`END ` included (spec A1 and section 8). */
export const SCREEN_MAX = 182;

/** Keys with a fixed meaning on every screen; menu options may not use them. */
export const NAV_KEYS = { back: '0', skip: '00', more: '98', exit: '*' } as const;

/** The translated words of the navigation lines. */
export interface NavLabels {
  back: string;
  more: string;
  exit: string;
  skip: string;
}

/** One menu line: `<key>. <label>`. */
export function optionLine(key: string, label: string): string {
  return `${key}. ${label}`;
}

function footer(labels: NavLabels, more: boolean, back: boolean): string[] {
  return [
    ...(more ? [optionLine(NAV_KEYS.more, labels.more)] : []),
    ...(back ? [optionLine(NAV_KEYS.back, labels.back)] : []),
    optionLine(NAV_KEYS.exit, labels.exit),
  ];
}

/** A menu page: heading, numbered options, then `98. More`, `0. Back`, `*. Exit` as they apply. */
export function menuScreen(
  page: { title: string; options: readonly { key: string; label: string }[]; more: boolean; back: boolean },
  labels: NavLabels,
): string {
  return [
    page.title,
    ...page.options.map((o) => optionLine(o.key, o.label)),
    ...footer(labels, page.more, page.back),
  ].join('\n');
}

/** An information page: a piece of text, then the navigation lines. */
export function infoScreen(page: { text: string; more: boolean; back: boolean }, labels: NavLabels): string {
  return [page.text, ...footer(labels, page.more, page.back)].join('\n');
}

/** An input prompt, with `00. Skip` when the input is optional. */
export function inputScreen(
  page: { prompt: string; skip: boolean; back: boolean },
  labels: NavLabels,
): string {
  return [
    page.prompt,
    ...(page.skip ? [optionLine(NAV_KEYS.skip, labels.skip)] : []),
    ...footer(labels, false, page.back),
  ].join('\n');
}

/** A short notice (an error or a confirmation) in front of a screen, separated by a blank line. */
export function withNotice(notice: string | undefined, screen: string): string {
  return notice === undefined ? screen : `${notice}\n\n${screen}`;
}

/** Length as a handset counts it: characters (code points), not UTF-16 units. */
export function screenLength(text: string): number {
  return [...text].length;
}
