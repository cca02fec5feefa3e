import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';

/**
 * Checks the login PIN. AccountService counts wrong attempts and locks the account on the third; this
 * shows how many are left, or the locked screen.
 */
export const verifyPin: ActionHandler<ActionTargets['verifyPin']> = async (ctx) => {
  const customerId = ctx.form('customerId');
  if (customerId === undefined || ctx.input === undefined) return { next: 'loginCustomerId' };
  const check = await ctx.accounts.verifyPin(customerId, ctx.input, ctx.phoneNumber);
  if (check.ok) {
    ctx.forget('customerId');
    ctx.login(check.customer);
    return { next: 'preMenu', notice: 'loggedIn' };
  }
  switch (check.reason) {
    case 'wrong_pin':
      return check.attemptsLeft > 0
        ? { retry: 'wrongPin', params: { attemptsLeft: String(check.attemptsLeft) } }
        : { next: 'accountLocked' };
    case 'locked':
      return { next: 'accountLocked' };
    case 'unknown_customer':
      ctx.forget('customerId');
      return { next: 'loginCustomerId', notice: 'unknownCustomer' };
  }
};
