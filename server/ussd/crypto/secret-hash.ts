import { randomBytes, timingSafeEqual } from 'node:crypto';
import { PIN_SCRYPT, runScrypt, type ScryptCost } from './pin-crypto.js';

/*
 * A secret input (a new PIN) waits in the session only as a salted scrypt hash, with the cost of stored
 * PINs (PIN_SCRYPT_LOG2N), until it is confirmed. A 5-digit PIN has little entropy, so this slows an
 * attacker who reads the session store rather than stopping one; the entry is removed right after the
 * confirmation, and sessions expire within minutes.
 */

/** Hashes a secret input while it waits for its confirmation, and compares a confirmation with it. */
export interface SecretHasher {
  /** `s2$<log2N>$<salt>$<hash>` (base64): the cost travels with the hash. */
  hash(secret: string): Promise<string>;
  /** Compares in constant time; false for anything that is not a hash made by {@link SecretHasher.hash}. */
  matches(secret: string, stored: string): Promise<boolean>;
}

/** A hasher at `cost` (default: the production cost). Also reads `s1$<salt>$<hash>` hashes (made at N = 2^14). */
export function createSecretHasher(cost: ScryptCost = PIN_SCRYPT): SecretHasher {
  return {
    async hash(secret) {
      const salt = randomBytes(PIN_SCRYPT.saltLength);
      const hash = await runScrypt(secret, salt, cost);
      return `s2$${cost.log2N}$${salt.toString('base64')}$${hash.toString('base64')}`;
    },
    async matches(secret, stored) {
      const parts = stored.split('$');
      const [version] = parts;
      const [log2N, salt, hash] =
        version === 's2' ? [Number(parts[1]), parts[2], parts[3]] : [14, parts[1], parts[2]];
      if ((version !== 's1' && version !== 's2') || salt === undefined || hash === undefined) return false;
      if (!Number.isInteger(log2N) || log2N < 1 || log2N > 20) return false;
      const expected = Buffer.from(hash, 'base64');
      const actual = await runScrypt(secret, Buffer.from(salt, 'base64'), { ...cost, log2N });
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  };
}
