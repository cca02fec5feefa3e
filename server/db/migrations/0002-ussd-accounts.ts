import { sql, type Kysely } from 'kysely';

/**
 * USSD accounts: customers (PIN only as an encrypted salted hash), the phones that dialled in, and an
 * append-only audit log. The audit log keeps no foreign key so its history outlives the rows it mentions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('customers')
    .addColumn('customer_id', 'text', (col) => col.primaryKey().check(sql`customer_id ~ '^C[0-9A-Z]{8}$'`))
    .addColumn('full_name', 'text', (col) => col.notNull())
    .addColumn('email', 'text')
    .addColumn('pin_record', 'text', (col) => col.notNull())
    .addColumn('pin_key_id', 'text', (col) => col.notNull())
    .addColumn('preferred_language', 'text', (col) =>
      col
        .notNull()
        .defaultTo('en')
        .check(sql`preferred_language in ('en', 'sw')`),
    )
    .addColumn('failed_pin_attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('locked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('phones')
    .addColumn('phone_number', 'text', (col) => col.primaryKey())
    .addColumn('first_seen', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('visit_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('customer_id', 'text', (col) => col.references('customers.customer_id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('phones_customer_id_idx').on('phones').column('customer_id').execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('customer_id', 'text')
    .addColumn('event', 'text', (col) => col.notNull())
    .addColumn('phone', 'text')
    .addColumn('detail', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema
    .createIndex('audit_log_customer_id_idx')
    .on('audit_log')
    .columns(['customer_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('phones').execute();
  await db.schema.dropTable('customers').execute();
}
