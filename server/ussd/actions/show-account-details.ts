import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';
import { requireCustomerId } from './require-customer.js';

/** My account: name, customer ID, email and language of the logged-in customer. */
export const showAccountDetails: ActionHandler<ActionTargets['showAccountDetails']> = async (ctx) => {
  const customer = await ctx.accounts.findByCustomerId(requireCustomerId(ctx));
  if (!customer) throw new Error('the logged-in customer does not exist');
  return {
    next: 'accountDetails',
    params: {
      name: customer.fullName,
      customerId: customer.customerId,
      email: customer.email ?? '-',
      language: ctx.languageNames[customer.language] ?? customer.language,
    },
  };
};
