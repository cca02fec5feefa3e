import { sql, type Kysely } from 'kysely';

/**
 * Tool calls that wait for their user's approval (issue 37): one row per call, written before the run tells
 * anyone it waits, so the decision and the turn's state to resume from survive the instance that asked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oracle_tool_approvals')
    .addColumn('tool_call_id', 'text', (col) => col.primaryKey())
    .addColumn('run_id', 'text', (col) => col.notNull())
    .addColumn('session_id', 'text', (col) => col.notNull())
    .addColumn('user_did', 'text', (col) => col.notNull())
    .addColumn('tool_name', 'text', (col) => col.notNull())
    .addColumn('args', 'jsonb', (col) => col.notNull())
    .addColumn('requested_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('pending'))
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('reason', 'text')
    .addColumn('resume', 'jsonb', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('oracle_tool_approvals_run_idx')
    .on('oracle_tool_approvals')
    .columns(['run_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oracle_tool_approvals').execute();
}
