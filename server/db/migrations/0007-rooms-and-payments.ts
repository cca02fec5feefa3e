import { sql, type Kysely } from 'kysely';

/**
 * Rooms with members (the scope of shared preferences and of a session's `roomId`), the audit log of changes
 * made in shared rooms, and what the chain said about each verified payment.
 *
 * A room has an owner (its creator) and members the owner adds by DID. Rooms named by sessions before this
 * migration become rooms owned by the user of the room's first session; other users of such a room must be
 * added by that owner (before, anyone who named a room id could read and write its preferences).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oracle_rooms')
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('room_id', 'text', (col) => col.notNull())
    .addColumn('owner_did', 'text', (col) => col.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('oracle_rooms_pkey', ['oracle_did', 'room_id'])
    .execute();
  await db.schema
    .createTable('oracle_room_members')
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('room_id', 'text', (col) => col.notNull())
    .addColumn('member_did', 'text', (col) => col.notNull())
    .addColumn('added_by', 'text', (col) => col.notNull())
    .addColumn('added_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('oracle_room_members_pkey', ['oracle_did', 'room_id', 'member_did'])
    .addForeignKeyConstraint(
      'oracle_room_members_room_fkey',
      ['oracle_did', 'room_id'],
      'oracle_rooms',
      ['oracle_did', 'room_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('oracle_room_members_member_idx')
    .on('oracle_room_members')
    .columns(['oracle_did', 'member_did'])
    .execute();
  await db.schema
    .createIndex('oracle_rooms_owner_idx')
    .on('oracle_rooms')
    .columns(['oracle_did', 'owner_did'])
    .execute();
  await db.schema
    .createTable('oracle_room_audit')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('oracle_did', 'text', (col) => col.notNull())
    .addColumn('room_id', 'text', (col) => col.notNull())
    .addColumn('actor_did', 'text', (col) => col.notNull())
    .addColumn('event', 'text', (col) => col.notNull())
    .addColumn('detail', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('oracle_room_audit_room_idx')
    .on('oracle_room_audit')
    .columns(['oracle_did', 'room_id', 'at'])
    .execute();
  // Rooms sessions named before rooms had members: owned by the user of the room's first session.
  await sql`
    insert into oracle_rooms (oracle_did, room_id, owner_did, created_at)
    select distinct on (oracle_did, room_id) oracle_did, room_id, user_did, created_at
    from oracle_sessions
    where room_id is not null
    order by oracle_did, room_id, created_at, session_id
  `.execute(db);

  // What the chain said about a verified payment: the paying account and the block it is in.
  await db.schema.alterTable('credit_payments').addColumn('sender', 'text').execute();
  await db.schema.alterTable('credit_payments').addColumn('height', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('credit_payments').dropColumn('height').execute();
  await db.schema.alterTable('credit_payments').dropColumn('sender').execute();
  await db.schema.dropTable('oracle_room_audit').execute();
  await db.schema.dropTable('oracle_room_members').execute();
  await db.schema.dropTable('oracle_rooms').execute();
}
