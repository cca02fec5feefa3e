import { sql, type Kysely } from 'kysely';

/** The memory plugin: facts about a user, per user DID and oracle. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('memories')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('user_did', 'text', (col) => col.notNull())
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('tags', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('memories_user_idx')
    .on('memories')
    .columns(['oracle_did', 'user_did', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('memories').execute();
}
