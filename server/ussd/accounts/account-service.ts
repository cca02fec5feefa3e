import DataLoader from 'dataloader';
import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import type { AccountService, CreatedCustomer, Customer, PinCheck } from './accounts.js';
import { writeAudit } from './audit.js';
import { newCustomerId, normaliseCustomerId } from './customer-id.js';
import type { PinCrypto } from '../crypto/pin-crypto.js';

/** Consecutive wrong PINs that lock an account. */
export const MAX_PIN_ATTEMPTS = 3;

/** What a new or changed PIN may look like; the menus ask for fewer, this only refuses nonsense. */
const PIN_SHAPE = /^\d{4,12}$/;
const ID_ATTEMPTS = 5;

/** The dial's lookup of the accounts bound to a batch of phone numbers (a prepared statement on PostgreSQL). */
const FIND_BY_PHONES = `
  select p.phone_number, c.customer_id, c.full_name, c.email, c.preferred_language, c.locked_at
  from phones p join customers c on c.customer_id = p.customer_id
  where p.phone_number = any($1::text[])`;

const customerColumns = ['customer_id', 'full_name', 'email', 'preferred_language', 'locked_at'] as const;

interface CustomerRow {
  customer_id: string;
  full_name: string;
  email: string | null;
  preferred_language: 'en' | 'sw';
  locked_at: Date | null;
}

function toCustomer(row: CustomerRow): Customer {
  return {
    customerId: row.customer_id,
    fullName: row.full_name,
    email: row.email,
    language: row.preferred_language,
    lockedAt: row.locked_at,
  };
}

function assertPinShape(pin: string): void {
  if (!PIN_SHAPE.test(pin)) throw new RangeError('a PIN must be 4 to 12 digits');
}

/**
 * The accounts of the USSD menus over kysely (PostgreSQL or PGlite). The slow scrypt work runs before a
 * transaction opens, so no row stays locked (and PGlite's single connection stays free) while it runs;
 * each write then happens in one transaction together with its audit entry.
 */
export function createAccountService(db: Db, pinCrypto: PinCrypto): AccountService {
  const k = db.kysely;

  // findByPhone runs on every dial. The lookups of the dials that arrive in one turn of the event loop go to
  // the database as one query (a turn takes a few of them under load; alone, a dial waits for nothing but
  // the end of its turn). Nothing is cached: each dial sees the bindings committed before its query.
  const phoneLoader = new DataLoader<string, Customer | undefined>(
    async (phones) => {
      const rows = await db.prepared<CustomerRow & { phone_number: string }>(
        'ussd-find-by-phones',
        FIND_BY_PHONES,
        [phones],
      );
      const found = new Map(rows.map((row) => [row.phone_number, toCustomer(row)]));
      return phones.map((phone) => found.get(phone));
    },
    { cache: false, maxBatchSize: 100, batchScheduleFn: (run) => setImmediate(run) },
  );

  const findByCustomerId = async (customerId: string): Promise<Customer | undefined> => {
    const id = normaliseCustomerId(customerId);
    if (id === undefined) return undefined;
    const row = await k
      .selectFrom('customers')
      .select(customerColumns)
      .where('customer_id', '=', id)
      .executeTakeFirst();
    return row && toCustomer(row);
  };

  const verifyPin = async (customerId: string, pin: string, phoneNumber: string): Promise<PinCheck> => {
    const id = normaliseCustomerId(customerId);
    const row =
      id === undefined
        ? undefined
        : await k
            .selectFrom('customers')
            .select([...customerColumns, 'pin_record', 'pin_key_id'])
            .where('customer_id', '=', id)
            .executeTakeFirst();
    if (row === undefined) {
      await pinCrypto.burn(pin);
      return { ok: false, reason: 'unknown_customer' };
    }
    if (row.locked_at !== null) return { ok: false, reason: 'locked' };
    const check = await pinCrypto.verify(
      pin,
      { record: row.pin_record, keyId: row.pin_key_id },
      row.customer_id,
    );

    return k.transaction().execute(async (trx): Promise<PinCheck> => {
      const now = await trx
        .selectFrom('customers')
        .select(['locked_at', 'pin_record', 'failed_pin_attempts'])
        .where('customer_id', '=', row.customer_id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (now.locked_at !== null) return { ok: false, reason: 'locked' };
      if (check.ok) {
        // Rewrite the record only if nobody changed the PIN since it was read.
        const replace = check.replacement !== undefined && now.pin_record === row.pin_record;
        await trx
          .updateTable('customers')
          .set({
            failed_pin_attempts: 0,
            ...(replace && check.replacement
              ? {
                  pin_record: check.replacement.record,
                  pin_key_id: check.replacement.keyId,
                  updated_at: sql`now()`,
                }
              : {}),
          })
          .where('customer_id', '=', row.customer_id)
          .execute();
        if (replace && check.replacement) {
          await writeAudit(trx, {
            customerId: row.customer_id,
            event: 'pin_reencrypted',
            phoneNumber,
            detail: { fromKeyId: row.pin_key_id, toKeyId: check.replacement.keyId },
          });
        }
        return { ok: true, customer: toCustomer(row) };
      }
      const attempts = now.failed_pin_attempts + 1;
      const locks = attempts >= MAX_PIN_ATTEMPTS;
      await trx
        .updateTable('customers')
        .set({
          failed_pin_attempts: attempts,
          ...(locks ? { locked_at: sql`now()`, updated_at: sql`now()` } : {}),
        })
        .where('customer_id', '=', row.customer_id)
        .execute();
      await writeAudit(trx, {
        customerId: row.customer_id,
        event: 'pin_failed',
        phoneNumber,
        detail: { attempt: attempts },
      });
      if (!locks) return { ok: false, reason: 'wrong_pin', attemptsLeft: MAX_PIN_ATTEMPTS - attempts };
      await writeAudit(trx, {
        customerId: row.customer_id,
        event: 'account_locked',
        phoneNumber,
        detail: { attempts },
      });
      return { ok: false, reason: 'locked' };
    });
  };

  return {
    async createCustomer({ fullName, email, pin, phoneNumber, language, sessionId }) {
      assertPinShape(pin);
      const hash = await pinCrypto.hash(pin);
      return k.transaction().execute(async (trx): Promise<CreatedCustomer> => {
        // One creation at a time per phone, across instances: the idempotency check below then holds.
        await sql`select pg_advisory_xact_lock(hashtext(${`ussd-phone:${phoneNumber}`}))`.execute(trx);
        const bound = await trx
          .selectFrom('phones')
          .select('customer_id')
          .where('phone_number', '=', phoneNumber)
          .executeTakeFirst();
        const previous = bound?.customer_id ?? undefined;
        if (sessionId !== undefined && previous !== undefined) {
          // The phone is bound to the newest customer made on it: made in this session, it is a retry.
          const same = await trx
            .selectFrom('audit_log')
            .select('customer_id')
            .where('customer_id', '=', previous)
            .where('event', '=', 'customer_created')
            .where(sql<string>`detail->>'sessionId'`, '=', sessionId)
            .executeTakeFirst();
          if (same !== undefined) return { customerId: previous, existing: true };
        }
        for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
          const customerId = newCustomerId();
          const { record, keyId } = pinCrypto.encrypt(hash, customerId);
          const inserted = await trx
            .insertInto('customers')
            .values({
              customer_id: customerId,
              full_name: fullName,
              email,
              pin_record: record,
              pin_key_id: keyId,
              preferred_language: language,
            })
            .onConflict((oc) => oc.column('customer_id').doNothing())
            .returning('customer_id')
            .executeTakeFirst();
          if (inserted === undefined) continue;
          await trx
            .insertInto('phones')
            .values({ phone_number: phoneNumber, customer_id: customerId })
            .onConflict((oc) => oc.column('phone_number').doUpdateSet({ customer_id: customerId }))
            .execute();
          await writeAudit(trx, {
            customerId,
            event: 'customer_created',
            phoneNumber,
            ...(sessionId === undefined ? {} : { detail: { sessionId } }),
          });
          if (previous === undefined) return { customerId };
          await writeAudit(trx, {
            customerId: previous,
            event: 'phone_rebound',
            phoneNumber,
            detail: { to: customerId },
          });
          return { customerId, previousCustomerId: previous };
        }
        throw new Error(`no free customer id after ${ID_ATTEMPTS} attempts`);
      });
    },

    findByCustomerId,

    findByPhone: (phoneNumber) => phoneLoader.load(phoneNumber),

    verifyPin,

    async changePin(customerId, newPin, phoneNumber) {
      assertPinShape(newPin);
      const id = normaliseCustomerId(customerId);
      if (id === undefined) throw new Error('unknown customer');
      const { record, keyId } = pinCrypto.encrypt(await pinCrypto.hash(newPin), id);
      await k.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable('customers')
          .set({ pin_record: record, pin_key_id: keyId, failed_pin_attempts: 0, updated_at: sql`now()` })
          .where('customer_id', '=', id)
          .returning('customer_id')
          .executeTakeFirst();
        if (updated === undefined) throw new Error('unknown customer');
        await writeAudit(trx, { customerId: id, event: 'pin_changed', phoneNumber });
      });
    },

    async setLanguage(customerId, language) {
      const id = normaliseCustomerId(customerId);
      const updated =
        id === undefined
          ? undefined
          : await k
              .updateTable('customers')
              .set({ preferred_language: language, updated_at: sql`now()` })
              .where('customer_id', '=', id)
              .returning('customer_id')
              .executeTakeFirst();
      if (updated === undefined) throw new Error('unknown customer');
    },

    async recordPhoneVisit(phoneNumber) {
      // One statement per visit; the part replaces this with the write-behind batcher (visit-batcher.ts).
      await sql`
        insert into phones (phone_number, visit_count) values (${phoneNumber}, 1)
        on conflict (phone_number) do update set last_seen = now(), visit_count = phones.visit_count + 1`.execute(
        k,
      );
    },

    async unlock(customerId, operator) {
      const id = normaliseCustomerId(customerId);
      if (id === undefined) return false;
      return k.transaction().execute(async (trx) => {
        const unlocked = await trx
          .updateTable('customers')
          .set({ locked_at: null, failed_pin_attempts: 0, updated_at: sql`now()` })
          .where('customer_id', '=', id)
          .where('locked_at', 'is not', null)
          .returning('customer_id')
          .executeTakeFirst();
        if (unlocked === undefined) return false;
        await writeAudit(trx, { customerId: id, event: 'account_unlocked', detail: { operator } });
        return true;
      });
    },
  };
}
