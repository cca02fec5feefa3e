import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { maskPhone } from '../../logger.js';

/** Every event the USSD accounts write to `audit_log`, closed so a typo does not invent a new one. */
export const AUDIT_EVENTS = [
  /** A customer was created from a phone (detail: the USSD session that created it). */
  'customer_created',
  /** The phone of this customer was bound to a newer customer (detail: `to`, the new customer ID). */
  'phone_rebound',
  /** A wrong PIN was entered (detail: attempt number). */
  'pin_failed',
  /** The third consecutive wrong PIN locked the account. */
  'account_locked',
  /** An operator lifted a lock (detail: operator). */
  'account_unlocked',
  /** The customer replaced their PIN. */
  'pin_changed',
  /** A correct PIN's record was re-encrypted under the current key (detail: from/to key id). */
  'pin_reencrypted',
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** Appends one audit entry inside the caller's transaction. The phone number is stored masked. */
export async function writeAudit(
  trx: Transaction<Database>,
  entry: { customerId: string; event: AuditEvent; phoneNumber?: string; detail?: Record<string, unknown> },
): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      customer_id: entry.customerId,
      event: entry.event,
      phone: entry.phoneNumber === undefined ? null : maskPhone(entry.phoneNumber),
      detail: JSON.stringify(entry.detail ?? {}),
    })
    .execute();
}
