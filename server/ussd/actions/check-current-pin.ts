import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';
import { requireCustomerId } from './require-customer.js';

/** Change PIN, step 1: the current PIN, checked (and counted) like a login. */
export const checkCurrentPin: ActionHandler<ActionTargets['checkCurrentPin']> = async (ctx) => {
  if (ctx.input === undefined) throw new Error('checkCurrentPin needs the PIN');
  const check = await ctx.accounts.verifyPin(requireCustomerId(ctx), ctx.input, ctx.phoneNumber);
  if (check.ok) return { next: 'changePinNew' };
  switch (check.reason) {
    case 'wrong_pin':
      if (check.attemptsLeft > 0)
        return { retry: 'wrongPin', params: { attemptsLeft: String(check.attemptsLeft) } };
      ctx.logout();
      return { next: 'accountLocked' };
    case 'locked':
      ctx.logout();
      return { next: 'accountLocked' };
    case 'unknown_customer':
      throw new Error('the logged-in customer does not exist');
  }
};
