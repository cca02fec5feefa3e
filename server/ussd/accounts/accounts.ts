/** A language a customer can choose; the menus are translated into each. */
export type LanguageCode = 'en' | 'sw';

/** What the USSD menus may read about a customer. Never carries the PIN or its hash. */
export interface Customer {
  customerId: string;
  fullName: string;
  email: string | null;
  language: LanguageCode;
  /** Null unless the account is locked after too many wrong PINs. */
  lockedAt: Date | null;
}

export type PinCheck =
  | { ok: true; customer: Customer }
  | { ok: false; reason: 'wrong_pin'; attemptsLeft: number }
  | { ok: false; reason: 'locked' }
  | { ok: false; reason: 'unknown_customer' };

/** What {@link AccountService.createCustomer} did. */
export interface CreatedCustomer {
  customerId: string;
  /** The customer the phone was bound to before (its binding moved to the new one). */
  previousCustomerId?: string;
  /** The session had already created this customer: nothing was written now. */
  existing?: boolean;
}

/**
 * Accounts as the USSD menu actions see them. Every method that writes runs in one database transaction,
 * so a failure leaves nothing half-written. Implemented over kysely (PostgreSQL or PGlite).
 */
export interface AccountService {
  /**
   * Creates a customer bound to the calling phone; returns the new customer ID (e.g. `C7K2M9Q4X`). With a
   * `sessionId`, idempotent per (phone, session): a gateway retry of the same session's confirmation gets
   * the customer that session already created (`existing`), never a second one. When the phone was bound to
   * another customer, `previousCustomerId` names it (that account keeps working with its customer ID).
   */
  createCustomer(input: {
    fullName: string;
    email: string | null;
    pin: string;
    phoneNumber: string;
    language: LanguageCode;
    sessionId?: string;
  }): Promise<CreatedCustomer>;
  findByCustomerId(customerId: string): Promise<Customer | undefined>;
  /** The customer most recently bound to this phone number, if any. */
  findByPhone(phoneNumber: string): Promise<Customer | undefined>;
  /**
   * Checks a PIN in constant time. Counts wrong attempts; the third consecutive wrong PIN locks the account
   * and writes an audit-log entry. A correct PIN resets the counter.
   */
  verifyPin(customerId: string, pin: string, phoneNumber: string): Promise<PinCheck>;
  /** Replaces the PIN (the caller has verified the old one). Audit-logged. */
  changePin(customerId: string, newPin: string, phoneNumber: string): Promise<void>;
  setLanguage(customerId: string, language: LanguageCode): Promise<void>;
  /** Upserts the phone's first/last seen and visit count at the start of a session. */
  recordPhoneVisit(phoneNumber: string): Promise<void>;
  /** Lifts a lock (operator action, see docs/ussd-gateway.md, "Unlocking an account"). Audit-logged. */
  unlock(customerId: string, operator: string): Promise<boolean>;
}
