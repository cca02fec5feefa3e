import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';

/**
 * A new payment reference: `pay_` and 32 hex digits (128 random bits), short enough for any wallet's memo field
 * (the chain allows 256 characters) and unguessable, so no one can bind their payment to another user.
 */
function newPaymentMemo(): string {
  return `pay_${randomBytes(16).toString('hex')}`;
}

/** A payment whose transaction another user reported first. */
export class PaymentConflictError extends Error {
  override name = 'PaymentConflictError';
}

/**
 * The credits ledger of one oracle: balances (a new user starts with `initialBalance`), usage claims recorded
 * when a turn is refused for lack of credits, and payments (one per transaction hash).
 */
export class CreditsLedger {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly oracleDid: string,
    private readonly initialBalance: number,
  ) {}

  private async ensureAccount(db: Kysely<Database>, userDid: string): Promise<void> {
    await db
      .insertInto('credit_accounts')
      .values({
        oracle_did: this.oracleDid,
        user_did: userDid,
        balance: this.initialBalance,
        payment_memo: newPaymentMemo(),
      })
      .onConflict((oc) => oc.columns(['oracle_did', 'user_did']).doNothing())
      .execute();
  }

  /**
   * Debits `price` when the balance covers it (one statement: concurrent turns never overdraw) and answers
   * the new balance; otherwise records an outstanding claim for the turn (one at a time: a user who keeps
   * trying does not pile up claims) and answers the ids of every outstanding claim and the user's payment
   * reference.
   */
  async debit(
    userDid: string,
    price: number,
  ): Promise<{ ok: true; balance: number } | { ok: false; claims: string[]; paymentMemo: string }> {
    await this.ensureAccount(this.db, userDid);
    const debited = await this.db
      .updateTable('credit_accounts')
      .set({ balance: sql`balance - ${price}`, updated_at: sql`now()` })
      .where('oracle_did', '=', this.oracleDid)
      .where('user_did', '=', userDid)
      .where('balance', '>=', String(price))
      .returning('balance')
      .executeTakeFirst();
    if (debited) return { ok: true, balance: Number(debited.balance) };
    let claims = await this.outstanding(userDid);
    if (claims.length === 0) {
      await this.db
        .insertInto('usage_claims')
        .values({
          id: `claim_${randomUUID()}`,
          oracle_did: this.oracleDid,
          user_did: userDid,
          amount: price,
          status: 'outstanding',
        })
        .execute();
      claims = await this.outstanding(userDid);
    }
    return { ok: false, claims, paymentMemo: (await this.account(userDid)).paymentMemo };
  }

  async outstanding(userDid: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('usage_claims')
      .select('id')
      .where('oracle_did', '=', this.oracleDid)
      .where('user_did', '=', userDid)
      .where('status', '=', 'outstanding')
      .orderBy('created_at')
      .execute();
    return rows.map((r) => r.id);
  }

  async balance(userDid: string): Promise<number> {
    return (await this.account(userDid)).balance;
  }

  /** The user's balance and payment reference (the account is made, with a new reference, on first use). */
  async account(userDid: string): Promise<{ balance: number; paymentMemo: string }> {
    await this.ensureAccount(this.db, userDid);
    const row = await this.db
      .selectFrom('credit_accounts')
      .select(['balance', 'payment_memo'])
      .where('oracle_did', '=', this.oracleDid)
      .where('user_did', '=', userDid)
      .executeTakeFirstOrThrow();
    return { balance: Number(row.balance), paymentMemo: row.payment_memo };
  }

  /**
   * The answer a payment already got, when this transaction was recorded before: for the same user, its first
   * answer again (a client may retry after a lost answer); for anyone else, a PaymentConflictError. Undefined
   * for a transaction never recorded.
   */
  async recorded(
    userDid: string,
    txHash: string,
  ): Promise<{ balance: number; settledClaims: string[] } | undefined> {
    const existing = await this.db
      .selectFrom('credit_payments')
      .selectAll()
      .where('tx_hash', '=', txHash.toLowerCase())
      .executeTakeFirst();
    if (!existing) return undefined;
    if (existing.user_did !== userDid || existing.oracle_did !== this.oracleDid) {
      throw new PaymentConflictError('this transaction was reported by another user');
    }
    return { balance: Number(existing.balance_after), settledClaims: existing.settled_claims };
  }

  /**
   * Records a payment the chain confirmed, once per transaction hash, in one transaction: credits the balance
   * and settles the outstanding claims. The same transaction again credits nothing (see {@link recorded}).
   */
  async pay(
    userDid: string,
    payment: {
      txHash: string;
      denom: string;
      amount: string;
      credits: number;
      sender: string;
      height: string;
    },
  ): Promise<{ balance: number; settledClaims: string[] }> {
    try {
      return await this.record(userDid, payment);
    } catch (err) {
      // Two reports of one transaction at once: the loser of the primary key answers as a repeat.
      if ((err as { code?: unknown }).code === '23505') {
        const first = await this.recorded(userDid, payment.txHash);
        if (first) return first;
      }
      throw err;
    }
  }

  private async record(
    userDid: string,
    payment: {
      txHash: string;
      denom: string;
      amount: string;
      credits: number;
      sender: string;
      height: string;
    },
  ): Promise<{ balance: number; settledClaims: string[] }> {
    return this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('credit_payments')
        .selectAll()
        .where('tx_hash', '=', payment.txHash.toLowerCase())
        .executeTakeFirst();
      if (existing) {
        if (existing.user_did !== userDid || existing.oracle_did !== this.oracleDid) {
          throw new PaymentConflictError('this transaction was reported by another user');
        }
        return { balance: Number(existing.balance_after), settledClaims: existing.settled_claims };
      }
      await this.ensureAccount(trx, userDid);
      const account = await trx
        .updateTable('credit_accounts')
        .set({ balance: sql`balance + ${payment.credits}`, updated_at: sql`now()` })
        .where('oracle_did', '=', this.oracleDid)
        .where('user_did', '=', userDid)
        .returning('balance')
        .executeTakeFirstOrThrow();
      const settled = await trx
        .updateTable('usage_claims')
        .set({ status: 'settled', settled_by: payment.txHash.toLowerCase() })
        .where('oracle_did', '=', this.oracleDid)
        .where('user_did', '=', userDid)
        .where('status', '=', 'outstanding')
        .returning('id')
        .execute();
      const settledClaims = settled.map((r) => r.id).sort();
      await trx
        .insertInto('credit_payments')
        .values({
          tx_hash: payment.txHash.toLowerCase(),
          oracle_did: this.oracleDid,
          user_did: userDid,
          denom: payment.denom,
          amount: String(BigInt(payment.amount)),
          credits: payment.credits,
          settled_claims: JSON.stringify(settledClaims),
          balance_after: account.balance,
          sender: payment.sender,
          height: payment.height,
        })
        .execute();
      return { balance: Number(account.balance), settledClaims };
    });
  }
}
