import type { FormField, Language } from '../../../generated/menus.js';
import type { ActionContext } from './action-types.js';
import { clearForm } from './navigate.js';
import type { Turn } from './turn.js';

/** The context a handler runs with; its methods change the turn's cursor. */
export function actionContext(turn: Turn, input: string | undefined): ActionContext {
  const c = turn.cursor;
  return {
    input,
    phoneNumber: turn.request.phoneNumber,
    sessionId: turn.request.sessionId,
    language: c.lang as Language,
    languageNames: turn.tree.languages,
    customerId: c.customerId,
    accounts: turn.accounts,
    logger: turn.logger,
    form: (field: FormField) => c.form[field],
    remember(field, value) {
      c.form[field] = value;
    },
    forget(field) {
      delete c.form[field];
      delete c.secrets[field];
    },
    async matchesSecret(field, value) {
      const stored = c.secrets[field];
      return stored !== undefined && (await turn.secrets.matches(value, stored));
    },
    login(customer) {
      c.isAuthenticated = true;
      c.customerId = customer.customerId;
      if (customer.language in turn.tree.languages) c.lang = customer.language;
    },
    logout() {
      c.isAuthenticated = false;
      delete c.customerId;
      clearForm(c);
    },
    setLanguage(language) {
      if (!(language in turn.tree.languages)) throw new Error(`language "${language}" is not in the menus`);
      c.lang = language;
    },
  };
}
