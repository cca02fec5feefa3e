import { randomBytes, timingSafeEqual } from 'node:crypto';
import { PIN_SCRYPT, runScrypt } from '../pin-crypto.js';

/*
 * A secret input (a new PIN) waits in the session only as a salted scrypt hash, with the same cost as
 * stored PINs (PIN_SCRYPT), until it is confirmed. A 5-digit PIN has little entropy, so this slows an
 * attacker who reads the session store rather than stopping one; the entry is removed right after the
 * confirmation, and sessions expire within minutes.
 */

/** `s1$<salt>$<hash>` (base64). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(PIN_SCRYPT.saltLength);
  return `s1$${salt.toString('base64')}$${(await runScrypt(secret, salt)).toString('base64')}`;
}

/** Compares in constant time; false for anything that is not a hash made by {@link hashSecret}. */
export async function secretMatches(secret: string, stored: string): Promise<boolean> {
  const [version, salt, hash] = stored.split('$');
  if (version !== 's1' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await runScrypt(secret, Buffer.from(salt, 'base64'));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
