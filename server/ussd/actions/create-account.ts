import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';

/**
 * Confirm PIN: compares with the PIN chosen before (kept only as a salted hash, and forgotten here
 * whatever the outcome), then creates the customer with the confirmed PIN. Idempotent per (phone,
 * session): a gateway retry of this step shows the customer ID it created the first time. When the phone
 * was bound to an older account, the screen says so (that account still opens with its customer ID).
 */
export const createAccount: ActionHandler<ActionTargets['createAccount']> = async (ctx) => {
  const matches = ctx.input !== undefined && (await ctx.matchesSecret('newPin', ctx.input));
  ctx.forget('newPin');
  const fullName = ctx.form('fullName');
  if (!matches || ctx.input === undefined) return { next: 'createPin', notice: 'pinMismatch' };
  if (fullName === undefined) throw new Error('account creation reached the PIN without a name');
  const created = await ctx.accounts.createCustomer({
    fullName,
    email: ctx.form('email') ?? null,
    pin: ctx.input,
    phoneNumber: ctx.phoneNumber,
    language: ctx.language,
    sessionId: ctx.sessionId,
  });
  const { customerId, previousCustomerId } = created;
  ctx.logger.info(
    { customerId, existing: created.existing === true, rebound: previousCustomerId !== undefined },
    created.existing === true ? 'ussd: account already created in this session' : 'ussd: account created',
  );
  return previousCustomerId === undefined
    ? { next: 'accountCreated', params: { customerId } }
    : {
        next: 'accountCreated',
        notice: 'phoneRebound',
        params: { customerId, previousId: previousCustomerId },
      };
};
