import { sql, type Kysely } from 'kysely';

/**
 * A payment reference per credits account (`credit_accounts.payment_memo`): a random string the user puts in the
 * memo of the transaction that pays, so that a payment is credited only to whoever made it (issue 36). Accounts
 * made before this migration get one here; new accounts get one when they are made.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('credit_accounts').addColumn('payment_memo', 'text').execute();
  await sql`
    update credit_accounts
    set payment_memo = 'pay_' || replace(gen_random_uuid()::text, '-', '')
    where payment_memo is null
  `.execute(db);
  await db.schema
    .alterTable('credit_accounts')
    .alterColumn('payment_memo', (col) => col.setNotNull())
    .execute();
  await db.schema
    .createIndex('credit_accounts_payment_memo_idx')
    .on('credit_accounts')
    .columns(['oracle_did', 'payment_memo'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('credit_accounts_payment_memo_idx').execute();
  await db.schema.alterTable('credit_accounts').dropColumn('payment_memo').execute();
}
