import type { AccountService } from '../../../server/ussd/accounts/accounts.js';
import { normaliseCustomerId } from '../../../server/ussd/accounts/customer-id.js';

export const UNLOCK_USAGE = `Usage: npm run ussd:unlock -- <customerId> [--operator <name>]

Lifts the lock that three wrong PINs put on a USSD account and resets its failed-PIN count. The action is
written to the audit log with the operator's name (default: $USER). Works on the server's database: the
configuration of \`npm start\` (the environment, and .env in this directory), DATABASE_URL or the embedded
PGlite under PGLITE_DATA_DIR. Exit codes: 0 unlocked (or not locked), 1 no such customer, 2 usage error,
3 could not work (configuration refused, database unreachable or not migrated).`;

/** What the command line asked for, or why it cannot be run. */
export type UnlockArgs = { customerId: string; operator: string } | { error: string };

/** Parses `<customerId> [--operator <name>]`; does not touch the database. */
export function parseUnlockArgs(argv: readonly string[], defaultOperator: string): UnlockArgs {
  const rest = [...argv];
  let operator = defaultOperator;
  const at = rest.indexOf('--operator');
  if (at !== -1) {
    const name = rest[at + 1];
    if (name === undefined || name.startsWith('-') || name.trim() === '')
      return { error: '--operator needs a name' };
    operator = name.trim();
    rest.splice(at, 2);
  }
  if (rest.includes('--help') || rest.includes('-h')) return { error: '' };
  if (rest.length !== 1) return { error: 'give exactly one customer ID' };
  const customerId = normaliseCustomerId(rest[0] ?? '');
  if (customerId === undefined)
    return { error: `"${rest[0]}" is not a customer ID (C followed by 8 characters)` };
  return { customerId, operator };
}

/** Outcome of the command: what to print and the process exit code (0 done, 1 no such customer). */
export interface UnlockOutcome {
  exitCode: 0 | 1;
  message: string;
}

/** Unlocks one customer through AccountService (one transaction, audit-logged). */
export async function unlockCustomer(
  accounts: Pick<AccountService, 'findByCustomerId' | 'unlock'>,
  customerId: string,
  operator: string,
): Promise<UnlockOutcome> {
  const customer = await accounts.findByCustomerId(customerId);
  if (customer === undefined) return { exitCode: 1, message: `No customer ${customerId}.` };
  if (customer.lockedAt === null)
    return { exitCode: 0, message: `${customerId} is not locked; nothing to do.` };
  if (!(await accounts.unlock(customerId, operator))) {
    return { exitCode: 0, message: `${customerId} was unlocked meanwhile; nothing to do.` };
  }
  return {
    exitCode: 0,
    message: `Unlocked ${customerId} (locked since ${customer.lockedAt.toISOString()}); audit-logged as ${operator}.`,
  };
}
