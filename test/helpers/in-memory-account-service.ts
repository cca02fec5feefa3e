import type {
  AccountService,
  Customer,
  LanguageCode,
  PinCheck,
} from '../../server/ussd/accounts/accounts.js';

/** Same rule as the real service: the third consecutive wrong PIN locks the account. */
const MAX_PIN_ATTEMPTS = 3;
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';

interface Row extends Customer {
  pin: string;
  failedAttempts: number;
}

/** What the double records, for tests to assert on (the real service writes an audit log instead). */
export interface InMemoryAccountService extends AccountService {
  readonly customers: ReadonlyMap<string, Readonly<Row>>;
  readonly phones: ReadonlyMap<string, { customerId: string | null; visits: number }>;
  /** Every call, by method name, without arguments (so no PIN is kept here). */
  readonly calls: string[];
}

/**
 * TEST DOUBLE of {@link AccountService} (server/ussd/accounts.ts), in memory, for fast engine tests. The
 * real implementation is server/ussd/account-service.ts over the database; the flow tests run against it
 * too. Customer ids are sequential (`C22222222`, `C22222223`, …) so tests can expect them exactly.
 */
export function createInMemoryAccountService(): InMemoryAccountService {
  const customers = new Map<string, Row>();
  const phones = new Map<string, { customerId: string | null; visits: number }>();
  const calls: string[] = [];
  let next = 0;
  const newId = (): string => {
    let n = next++;
    let id = '';
    for (let i = 0; i < 8; i++) {
      id = (ALPHABET[n % ALPHABET.length] ?? '2') + id;
      n = Math.floor(n / ALPHABET.length);
    }
    return `C${id}`;
  };
  const view = (row: Row): Customer => ({
    customerId: row.customerId,
    fullName: row.fullName,
    email: row.email,
    language: row.language,
    lockedAt: row.lockedAt,
  });

  return {
    customers,
    phones,
    calls,
    createCustomer({ fullName, email, pin, phoneNumber, language }) {
      calls.push('createCustomer');
      const customerId = newId();
      customers.set(customerId, {
        customerId,
        fullName,
        email,
        language,
        lockedAt: null,
        pin,
        failedAttempts: 0,
      });
      phones.set(phoneNumber, { customerId, visits: phones.get(phoneNumber)?.visits ?? 0 });
      return Promise.resolve({ customerId });
    },
    findByCustomerId(customerId) {
      calls.push('findByCustomerId');
      const row = customers.get(customerId.trim().toUpperCase());
      return Promise.resolve(row && view(row));
    },
    findByPhone(phoneNumber) {
      calls.push('findByPhone');
      const id = phones.get(phoneNumber)?.customerId;
      const row = id ? customers.get(id) : undefined;
      return Promise.resolve(row && view(row));
    },
    verifyPin(customerId, pin): Promise<PinCheck> {
      calls.push('verifyPin');
      const row = customers.get(customerId.trim().toUpperCase());
      if (!row) return Promise.resolve({ ok: false, reason: 'unknown_customer' });
      if (row.lockedAt) return Promise.resolve({ ok: false, reason: 'locked' });
      if (row.pin === pin) {
        row.failedAttempts = 0;
        return Promise.resolve({ ok: true, customer: view(row) });
      }
      row.failedAttempts += 1;
      if (row.failedAttempts >= MAX_PIN_ATTEMPTS) {
        row.lockedAt = new Date();
        return Promise.resolve({ ok: false, reason: 'locked' });
      }
      return Promise.resolve({
        ok: false,
        reason: 'wrong_pin',
        attemptsLeft: MAX_PIN_ATTEMPTS - row.failedAttempts,
      });
    },
    changePin(customerId, newPin) {
      calls.push('changePin');
      const row = customers.get(customerId);
      if (!row) return Promise.reject(new Error('unknown customer'));
      row.pin = newPin;
      row.failedAttempts = 0;
      return Promise.resolve();
    },
    setLanguage(customerId, language: LanguageCode) {
      calls.push('setLanguage');
      const row = customers.get(customerId);
      if (!row) return Promise.reject(new Error('unknown customer'));
      row.language = language;
      return Promise.resolve();
    },
    recordPhoneVisit(phoneNumber) {
      calls.push('recordPhoneVisit');
      const phone = phones.get(phoneNumber);
      phones.set(phoneNumber, { customerId: phone?.customerId ?? null, visits: (phone?.visits ?? 0) + 1 });
      return Promise.resolve();
    },
    unlock(customerId) {
      calls.push('unlock');
      const row = customers.get(customerId);
      if (!row?.lockedAt) return Promise.resolve(false);
      row.lockedAt = null;
      row.failedAttempts = 0;
      return Promise.resolve(true);
    },
  };
}
