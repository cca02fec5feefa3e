import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';

/** Log in: offers the account bound to the calling phone, if there is one; otherwise asks for a customer ID. */
export const startLogin: ActionHandler<ActionTargets['startLogin']> = async (ctx) => {
  const bound = await ctx.accounts.findByPhone(ctx.phoneNumber);
  return bound
    ? { next: 'loginChoice', params: { customerId: bound.customerId } }
    : { next: 'loginCustomerId' };
};
