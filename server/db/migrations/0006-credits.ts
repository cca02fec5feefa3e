import { sql, type Kysely } from 'kysely';

/**
 * The credits plugin: a balance per user and oracle, the usage claims recorded when a turn was refused for
 * lack of credits, and the payments reported after paying on chain (one per transaction hash).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('credit_accounts')
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('user_did', 'text', (col) => col.notNull())
    .addColumn('balance', 'numeric', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('credit_accounts_pkey', ['oracle_did', 'user_did'])
    .execute();
  await db.schema
    .createTable('usage_claims')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('user_did', 'text', (col) => col.notNull())
    .addColumn('amount', 'numeric', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('outstanding', 'settled')`))
    .addColumn('settled_by', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('usage_claims_outstanding_idx')
    .on('usage_claims')
    .columns(['oracle_did', 'user_did', 'status'])
    .execute();
  await db.schema
    .createTable('credit_payments')
    .addColumn('tx_hash', 'text', (col) => col.primaryKey())
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('user_did', 'text', (col) => col.notNull())
    .addColumn('denom', 'text', (col) => col.notNull())
    .addColumn('amount', 'numeric', (col) => col.notNull())
    .addColumn('credits', 'numeric', (col) => col.notNull())
    .addColumn('settled_claims', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('balance_after', 'numeric', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('credit_payments').execute();
  await db.schema.dropTable('usage_claims').execute();
  await db.schema.dropTable('credit_accounts').execute();
}
