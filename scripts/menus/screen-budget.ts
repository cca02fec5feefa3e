import { SCREEN_MAX, screenLength, type NavLabels } from '../../lib/ussd/screen-layout.js';
import type { Translated } from './file-schema.js';
import type { MenuModel } from './load-model.js';
import { worstCase } from './placeholders.js';
import { placeholderLengths } from './saved-answers.js';

/** The longest notice allowed; every `CON` screen keeps room for the longest one actually declared. */
export const NOTICE_MAX = 60;

/** Measures screens of one language at their worst case. */
export interface ScreenBudget {
  lang: string;
  labels: NavLabels;
  /** The text with every placeholder at its longest. */
  worst(text: Translated): string;
  /** Length of the longest notice in this language. */
  noticeMax: number;
  /** Length of `CON ` + longest notice + blank line + screen. */
  conLength(screen: string): number;
  fitsCon(screen: string): boolean;
  /** Length of `END ` + text. */
  endLength(text: string): number;
}

/** The budget of one language: how long a screen may be once `CON ` and the longest notice are in front. */
export function screenBudget(model: MenuModel, lang: string): ScreenBudget {
  const maxLengths = placeholderLengths(model);
  const worst = (text: Translated): string => worstCase(text[lang] ?? '', maxLengths);
  const notices = [model.system.value.invalidChoice, ...[...model.notices.values()].map((n) => n.value)];
  const noticeMax = Math.max(...notices.map((n) => screenLength(worst(n))));
  const { back, more, exit, skip } = model.system.value;
  const conLength = (screen: string): number =>
    'CON '.length + noticeMax + '\n\n'.length + screenLength(screen);
  return {
    lang,
    labels: { back: worst(back), more: worst(more), exit: worst(exit), skip: worst(skip) },
    worst,
    noticeMax,
    conLength,
    fitsCon: (screen) => conLength(screen) <= SCREEN_MAX,
    endLength: (text) => 'END '.length + screenLength(text),
  };
}
