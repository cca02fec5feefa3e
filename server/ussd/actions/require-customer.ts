import type { ActionContext } from '../engine/action-types.js';

/** The logged-in customer's id. Services are only offered after login, so its absence is a bug. */
export function requireCustomerId(ctx: ActionContext): string {
  if (ctx.customerId === undefined) throw new Error('this action needs a logged-in customer');
  return ctx.customerId;
}
