import type { AccountService } from '../accounts/accounts.js';

/**
 * The accounts as one turn's actions see them: each method that commits a change the user is told about
 * (an account, a PIN check and its lock, a new PIN, a language) calls `committed` when it succeeds, so the
 * session flow knows the reply reports a change already in the database and must be delivered even when
 * the session store fails afterwards.
 */
export function trackCommits(accounts: AccountService, committed: () => void): AccountService {
  const after = async <T>(work: Promise<T>): Promise<T> => {
    const result = await work;
    committed();
    return result;
  };
  return {
    ...accounts,
    createCustomer: (input) => after(accounts.createCustomer(input)),
    verifyPin: (customerId, pin, phoneNumber) => after(accounts.verifyPin(customerId, pin, phoneNumber)),
    changePin: (customerId, newPin, phoneNumber) =>
      after(accounts.changePin(customerId, newPin, phoneNumber)),
    setLanguage: (customerId, language) => after(accounts.setLanguage(customerId, language)),
  };
}
