import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';

/**
 * Confirm PIN: compares with the PIN chosen before (kept only as a salted hash, and forgotten here
 * whatever the outcome), then creates the customer with the confirmed PIN.
 */
export const createAccount: ActionHandler<ActionTargets['createAccount']> = async (ctx) => {
  const matches = ctx.input !== undefined && (await ctx.matchesSecret('newPin', ctx.input));
  ctx.forget('newPin');
  const fullName = ctx.form('fullName');
  if (!matches || ctx.input === undefined) return { next: 'createPin', notice: 'pinMismatch' };
  if (fullName === undefined) throw new Error('account creation reached the PIN without a name');
  const { customerId } = await ctx.accounts.createCustomer({
    fullName,
    email: ctx.form('email') ?? null,
    pin: ctx.input,
    phoneNumber: ctx.phoneNumber,
    language: ctx.language,
  });
  ctx.logger.info({ customerId }, 'ussd: account created');
  return { next: 'accountCreated', params: { customerId } };
};
