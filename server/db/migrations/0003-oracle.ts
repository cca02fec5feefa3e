import { sql, type Kysely } from 'kysely';

/**
 * The agent (oracle) service: chat sessions of a user with this oracle, their messages (ordered by `seq`,
 * the transcript cursor), durable runs (one per turn, leased by the instance executing it), and the users'
 * stored delegations to the oracle.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oracle_sessions')
    .addColumn('session_id', 'text', (col) => col.primaryKey())
    .addColumn('user_did', 'text', (col) => col.notNull())
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('title', 'text')
    .addColumn('room_id', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('last_updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('oracle_sessions_user_idx')
    .on('oracle_sessions')
    .columns(['user_did', 'oracle_did', 'last_updated_at'])
    .execute();

  await db.schema
    .createTable('oracle_messages')
    .addColumn('seq', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('session_id', 'text', (col) =>
      col.notNull().references('oracle_sessions.session_id').onDelete('cascade'),
    )
    .addColumn('type', 'text', (col) => col.notNull().check(sql`type in ('ai', 'human')`))
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('tool_calls', 'jsonb')
    .addColumn('reasoning', 'text')
    .addColumn('run_status', 'text')
    .addColumn('attachment', 'jsonb')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('oracle_messages_session_id_id_key', ['session_id', 'id'])
    .execute();
  await db.schema
    .createIndex('oracle_messages_session_seq_idx')
    .on('oracle_messages')
    .columns(['session_id', 'seq'])
    .execute();

  await db.schema
    .createTable('oracle_runs')
    .addColumn('run_id', 'text', (col) => col.primaryKey())
    .addColumn('session_id', 'text', (col) =>
      col.notNull().references('oracle_sessions.session_id').onDelete('cascade'),
    )
    .addColumn('user_did', 'text', (col) => col.notNull())
    .addColumn('request_id', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) =>
      col
        .notNull()
        .check(
          sql`status in ('queued', 'running', 'recovering', 'finished', 'aborted', 'interrupted', 'failed')`,
        ),
    )
    .addColumn('attempt', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('owner', 'text')
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('partial_text', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('last_event_id', 'bigint', (col) => col.notNull().defaultTo(0))
    // Set once the turn has called a tool: such a turn is never re-run after a crash (no side effect twice).
    .addColumn('tools_started', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('request', 'jsonb', (col) => col.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('ended_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('oracle_runs_session_idx')
    .on('oracle_runs')
    .columns(['session_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('oracle_runs_in_flight_idx')
    .on('oracle_runs')
    .columns(['status', 'lease_expires_at'])
    .where(sql.ref('status'), 'in', sql`('queued', 'running', 'recovering')`)
    .execute();

  await db.schema
    .createTable('oracle_delegations')
    .addColumn('user_did', 'text', (col) => col.notNull())
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('cid', 'text', (col) => col.notNull())
    .addColumn('serialized', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .addColumn('stored_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('oracle_delegations_pkey', ['user_did', 'oracle_did'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oracle_delegations').execute();
  await db.schema.dropTable('oracle_runs').execute();
  await db.schema.dropTable('oracle_messages').execute();
  await db.schema.dropTable('oracle_sessions').execute();
}
