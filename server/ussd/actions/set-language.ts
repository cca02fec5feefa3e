import type { ActionTargets, Language } from '../../../generated/menus.js';
import type { LanguageCode } from '../accounts/accounts.js';
import type { ActionHandler } from '../engine/action-types.js';
import { requireCustomerId } from './require-customer.js';

const LANGUAGES: Record<LanguageCode, true> = { en: true, sw: true };

function isLanguage(value: string | undefined): value is LanguageCode & Language {
  return value !== undefined && value in LANGUAGES;
}

/** Language: stores the choice on the customer (it then applies to every later session) and switches now. */
export const setLanguage: ActionHandler<ActionTargets['setLanguage']> = async (ctx) => {
  if (!isLanguage(ctx.input)) throw new Error(`setLanguage got an unknown language "${String(ctx.input)}"`);
  await ctx.accounts.setLanguage(requireCustomerId(ctx), ctx.input);
  ctx.setLanguage(ctx.input);
  return { next: 'services', notice: 'languageChanged' };
};
