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
  /** Chat sessions of the agent service (migration 0003). */
  oracle_sessions: OracleSessionsTable;
  /** Messages of the chat sessions, ordered by `seq` (migration 0003). */
  oracle_messages: OracleMessagesTable;
  /** Durable runs, one per turn (migration 0003). */
  oracle_runs: OracleRunsTable;
  /** Tool calls waiting for (or past) their user's approval (migration 0009). */
  oracle_tool_approvals: OracleToolApprovalsTable;
  /** Users' delegations to the oracle (migration 0003). */
  oracle_delegations: OracleDelegationsTable;
  /** The user-preferences plugin's records, one per room (migration 0004). */
  user_preferences: UserPreferencesTable;
  /** The memory plugin's facts about users (migration 0005). */
  memories: MemoriesTable;
  /** The credits plugin (migration 0006). */
  credit_accounts: CreditAccountsTable;
  usage_claims: UsageClaimsTable;
  credit_payments: CreditPaymentsTable;
  /** Rooms of the agent service: the scope of shared preferences and of a session's room (migration 0007). */
  oracle_rooms: OracleRoomsTable;
  /** Members of the rooms, besides their owner (migration 0007). */
  oracle_room_members: OracleRoomMembersTable;
  /** Who changed what in a shared room (migration 0007). */
  oracle_room_audit: OracleRoomAuditTable;
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

export interface OracleSessionsTable {
  session_id: string;
  user_did: string;
  oracle_did: string;
  title: string | null;
  room_id: string | null;
  created_at: Generated<Date>;
  last_updated_at: Generated<Date>;
}

export interface OracleMessagesTable {
  /** bigint identity: the order of the transcript and its cursor. */
  seq: ColumnType<number | string, never, never>;
  id: string;
  session_id: string;
  type: 'ai' | 'human';
  content: string;
  tool_calls: ColumnType<unknown[] | null, string | null | undefined, string | null>;
  reasoning: string | null;
  run_status: string | null;
  attachment: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
}

export interface OracleRunsTable {
  run_id: string;
  session_id: string;
  user_did: string;
  request_id: string;
  status: 'queued' | 'running' | 'recovering' | 'finished' | 'aborted' | 'interrupted' | 'failed';
  attempt: Generated<number>;
  /** Instance executing the run while its lease holds. */
  owner: string | null;
  lease_expires_at: Date | null;
  partial_text: Generated<string>;
  last_event_id: ColumnType<number, number | undefined, number>;
  /** The turn has called a tool: it is never re-run after a crash. */
  tools_started: Generated<boolean>;
  /** The turn's request (message, tools, actions, model; never a token), to resume it. */
  request: ColumnType<Record<string, unknown>, string, string>;
  error: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  ended_at: Date | null;
}

export interface OracleToolApprovalsTable {
  tool_call_id: string;
  run_id: string;
  session_id: string;
  /** The session's owner: the one user who may decide. */
  user_did: string;
  tool_name: string;
  args: ColumnType<Record<string, unknown>, string, string>;
  requested_at: Generated<Date>;
  expires_at: Date;
  status: ColumnType<'pending' | 'approved' | 'denied', 'pending' | undefined, 'approved' | 'denied'>;
  /** The deciding user's DID, or `system` (a timeout, an ended turn). */
  decided_by: string | null;
  decided_at: Date | null;
  reason: string | null;
  /** The turn's state at the call, to resume it on another instance. */
  resume: ColumnType<Record<string, unknown>, string, string>;
}

export interface OracleDelegationsTable {
  user_did: string;
  oracle_did: string;
  cid: string;
  /** The delegation as the client sent it (base64 CAR); it grants the oracle, and only the oracle, its capability. */
  serialized: string;
  expires_at: Date;
  stored_at: Generated<Date>;
}

export interface UserPreferencesTable {
  oracle_did: string;
  /** `pair:<user DID>` for the (user, oracle) pair's room, `room:<id>` for a shared room. */
  room_key: string;
  preferences: ColumnType<Record<string, unknown>, string | undefined, string>;
  updated_at: Generated<Date>;
}

export interface MemoriesTable {
  id: string;
  oracle_did: string;
  user_did: string;
  content: string;
  tags: ColumnType<string[], string | undefined, string>;
  created_at: Generated<Date>;
}

/** `numeric` columns come back as strings from both drivers. */
type Numeric = ColumnType<string, string | number, string | number>;

export interface CreditAccountsTable {
  oracle_did: string;
  user_did: string;
  balance: Numeric;
  /** The account's payment reference: a paying transaction's memo contains it (migration 0008). */
  payment_memo: string;
  updated_at: Generated<Date>;
}

export interface UsageClaimsTable {
  id: string;
  oracle_did: string;
  user_did: string;
  amount: Numeric;
  status: 'outstanding' | 'settled';
  settled_by: string | null;
  created_at: Generated<Date>;
}

export interface CreditPaymentsTable {
  tx_hash: string;
  oracle_did: string;
  user_did: string;
  denom: string;
  amount: Numeric;
  credits: Numeric;
  settled_claims: ColumnType<string[], string | undefined, string>;
  balance_after: Numeric;
  created_at: Generated<Date>;
  /** The account that paid, as the chain says (migration 0007; null for payments recorded before). */
  sender: ColumnType<string | null, string | null | undefined, string | null>;
  /** The block height of the transaction (migration 0007). */
  height: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface OracleRoomsTable {
  oracle_did: string;
  room_id: string;
  /** The room's creator: the only one who adds and removes members. */
  owner_did: string;
  name: string | null;
  created_at: Generated<Date>;
}

export interface OracleRoomMembersTable {
  oracle_did: string;
  room_id: string;
  member_did: string;
  added_by: string;
  added_at: Generated<Date>;
}

export interface OracleRoomAuditTable {
  id: ColumnType<number | string, never, never>;
  oracle_did: string;
  room_id: string;
  /** The member who made the change. */
  actor_did: string;
  event: string;
  detail: ColumnType<Record<string, unknown>, string | undefined, string>;
  at: Generated<Date>;
}
