import { sql, type Kysely } from 'kysely';

/**
 * User preferences (spec part D): one record per room of an oracle. The room is the (user, oracle) pair's own
 * (`pair:<user DID>`) unless a request names a shared room (`room:<id>`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_preferences')
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('room_key', 'text', (col) => col.notNull())
    .addColumn('preferences', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('user_preferences_pkey', ['oracle_did', 'room_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_preferences').execute();
}
