import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';
import { requireCustomerId } from './require-customer.js';

/** Change PIN, last step: the confirmation must match the new PIN (kept as a salted hash until now). */
export const changePin: ActionHandler<ActionTargets['changePin']> = async (ctx) => {
  const matches = ctx.input !== undefined && (await ctx.matchesSecret('newPin', ctx.input));
  ctx.forget('newPin');
  if (!matches || ctx.input === undefined) return { next: 'changePinNew', notice: 'pinMismatch' };
  await ctx.accounts.changePin(requireCustomerId(ctx), ctx.input, ctx.phoneNumber);
  return { next: 'services', notice: 'pinChanged' };
};
