import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';

/** "Use account C… for this phone": looks the binding up again and asks for that account's PIN. */
export const useBoundAccount: ActionHandler<ActionTargets['useBoundAccount']> = async (ctx) => {
  const bound = await ctx.accounts.findByPhone(ctx.phoneNumber);
  if (!bound) throw new Error('the phone has no account any more');
  ctx.remember('customerId', bound.customerId);
  return { next: 'loginPin' };
};
