import type { ColumnType, Generated } from 'kysely';

/**
 * Tables of the relational database, as kysely sees them. One interface per table; each part adds its
 * tables here together with the migration that creates them (server/db/migrations/).
 */
export interface Database {
  /** Bookkeeping row written by the first migration; proves migrations ran. */
  app_meta: AppMetaTable;
  /** USSD customers (migration 0002). */
  customers: CustomersTable;
  /** Phones that dialled the USSD service (migration 0002). */
  phones: PhonesTable;
  /** Append-only security events of the USSD accounts (migration 0002). */
  audit_log: AuditLogTable;
}

export interface AppMetaTable {
  key: string;
  value: string;
  updated_at: Generated<Date>;
}

export interface CustomersTable {
  /** `C` + 8 characters of an unambiguous alphabet, e.g. `C7K2M9Q4X`. */
  customer_id: string;
  full_name: string;
  email: string | null;
  /** The PIN as an AES-256-GCM-encrypted salted scrypt hash (base64); never the PIN. */
  pin_record: string;
  /** Id of the key that encrypted `pin_record` (PIN_ENCRYPTION_KEY_ID or a previous key). */
  pin_key_id: string;
  preferred_language: Generated<'en' | 'sw'>;
  failed_pin_attempts: Generated<number>;
  locked_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface PhonesTable {
  /** E.164, as received from the telecom gateway. */
  phone_number: string;
  first_seen: Generated<Date>;
  last_seen: Generated<Date>;
  visit_count: Generated<number>;
  customer_id: string | null;
}

export interface AuditLogTable {
  /** bigint identity; kept as a number while it is a safe integer (see server/db/index.ts). */
  id: ColumnType<number | string, never, never>;
  at: Generated<Date>;
  customer_id: string | null;
  event: string;
  /** Masked phone number (maskPhone), never the full number. */
  phone: string | null;
  detail: ColumnType<Record<string, unknown>, string | undefined, string>;
}
