import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * scrypt with N = 2^14, r = 8, p = 1 and a random 16-byte salt: a secret input (a new PIN) waits in the
 * session only in this form until it is confirmed. A 5-digit PIN has little entropy, so this slows an
 * attacker who reads the session store rather than stopping one; the entry is removed right after the
 * confirmation, and sessions expire within minutes.
 */
const PARAMS = { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, PARAMS, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `s1$<salt>$<hash>` (base64). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  return `s1$${salt.toString('base64')}$${(await derive(secret, salt)).toString('base64')}`;
}

/** Compares in constant time; false for anything that is not a hash made by {@link hashSecret}. */
export async function secretMatches(secret: string, stored: string): Promise<boolean> {
  const [version, salt, hash] = stored.split('$');
  if (version !== 's1' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(secret, Buffer.from(salt, 'base64'));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
