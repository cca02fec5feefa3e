import type { AccountService, CreatedCustomer, Customer, PinCheck } from '../accounts/accounts.js';

/**
 * The accounts as one turn's actions see them: each method that commits a change the user is told about
 * (an account, a PIN check and its lock, a new PIN, a language) sets {@link committed} when it succeeds, so
 * the session flow knows the reply reports a change already in the database and must be delivered even when
 * the session store fails afterwards. A class, so a turn makes one object rather than a closure per method.
 */
export class CommitTracker implements AccountService {
  /** A change the user is told about was committed during this turn. */
  committed = false;

  constructor(private readonly accounts: AccountService) {}

  async createCustomer(input: Parameters<AccountService['createCustomer']>[0]): Promise<CreatedCustomer> {
    const created = await this.accounts.createCustomer(input);
    this.committed = true;
    return created;
  }

  async verifyPin(customerId: string, pin: string, phoneNumber: string): Promise<PinCheck> {
    const check = await this.accounts.verifyPin(customerId, pin, phoneNumber);
    this.committed = true;
    return check;
  }

  async changePin(customerId: string, newPin: string, phoneNumber: string): Promise<void> {
    await this.accounts.changePin(customerId, newPin, phoneNumber);
    this.committed = true;
  }

  async setLanguage(
    customerId: string,
    language: Parameters<AccountService['setLanguage']>[1],
  ): Promise<void> {
    await this.accounts.setLanguage(customerId, language);
    this.committed = true;
  }

  findByCustomerId(customerId: string): Promise<Customer | undefined> {
    return this.accounts.findByCustomerId(customerId);
  }

  findByPhone(phoneNumber: string): Promise<Customer | undefined> {
    return this.accounts.findByPhone(phoneNumber);
  }

  recordPhoneVisit(phoneNumber: string): Promise<void> {
    return this.accounts.recordPhoneVisit(phoneNumber);
  }

  unlock(customerId: string, operator: string): Promise<boolean> {
    return this.accounts.unlock(customerId, operator);
  }
}
