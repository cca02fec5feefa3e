import { createCipheriv, createDecipheriv, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { PIN_SCRYPT_LOG2N_MIN_PRODUCTION } from '../config.js';
import type { PinKeyring } from './pin-keys.js';

/**
 * scrypt cost of new PIN hashes in production: N = 2^14, r = 8, p = 1 (16 MiB of memory per hash), 32-byte
 * output, 16-byte random salt per record. Measured at 44–54 ms per hash on the project's 2-core machine; it
 * runs on libuv's thread pool, not the event loop. A PIN has little entropy, so the hash mainly slows an
 * attacker who holds both the database and the key; the AES-GCM layer under a key kept outside the
 * database is what keeps records useless to someone holding the database alone. Tests lower N through
 * PIN_SCRYPT_LOG2N, which production refuses below 14 (server/ussd/config.ts).
 */
export const PIN_SCRYPT = {
  log2N: PIN_SCRYPT_LOG2N_MIN_PRODUCTION,
  r: 8,
  p: 1,
  keyLength: 32,
  saltLength: 16,
} as const;

/** The cost parameters of one scrypt hash; each record stores the ones it was made with. */
export interface ScryptCost {
  readonly log2N: number;
  readonly r: number;
  readonly p: number;
}

/** The production cost with N = 2^log2N (PIN_SCRYPT_LOG2N). */
export function scryptCost(log2N: number): ScryptCost {
  return { log2N, r: PIN_SCRYPT.r, p: PIN_SCRYPT.p };
}

const VERSION = 1;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;

/** A stored PIN: the encrypted, salted scrypt hash (base64) and the id of the key that encrypted it. */
export interface PinRecord {
  record: string;
  keyId: string;
}

/** The decrypted content of a record: cost parameters, salt and hash. Never leaves this module's callers. */
export interface PinHash {
  readonly params: ScryptCost;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/** Outcome of {@link PinCrypto.verify}: `replacement` is set when a correct PIN's record should be rewritten. */
export interface PinVerification {
  ok: boolean;
  /** The same PIN re-encrypted under the current key (and current cost), when the stored record is older. */
  replacement: PinRecord | undefined;
}

/** A record that cannot be read: unknown key id, wrong key, tampered or truncated data. */
export class PinRecordError extends Error {
  override name = 'PinRecordError';
}

/**
 * PIN hashing and encryption. A PIN is hashed with scrypt and a random salt, and the result is encrypted
 * with AES-256-GCM under the current key with a random 12-byte IV. The customer id and key id are bound in
 * as associated data, so a record copied onto another customer does not verify. Equal PINs never give
 * equal records.
 */
export interface PinCrypto {
  readonly currentKeyId: string;
  /** The slow part (scrypt); run once per PIN, outside any database transaction. */
  hash(pin: string): Promise<PinHash>;
  /** The fast part: encrypts a hash for one customer under the current key. */
  encrypt(hash: PinHash, customerId: string): PinRecord;
  /** Checks a PIN against a stored record in constant time. Throws {@link PinRecordError} if unreadable. */
  verify(pin: string, stored: PinRecord, customerId: string): Promise<PinVerification>;
  /** Spends the time of a verification without a record, so unknown customer ids are not revealed by timing. */
  burn(pin: string): Promise<void>;
}

/** scrypt of a secret with the given cost, on libuv's pool. */
export function runScrypt(pin: string, salt: Buffer, params: ScryptCost): Promise<Buffer> {
  const N = 2 ** params.log2N;
  return new Promise((resolve, reject) => {
    scrypt(
      pin,
      salt,
      PIN_SCRYPT.keyLength,
      { N, r: params.r, p: params.p, maxmem: 256 * N * params.r },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

function associatedData(keyId: string, customerId: string): Buffer {
  return Buffer.from(`ussd-pin:v${VERSION}:${keyId}:${customerId}`, 'utf8');
}

function serialise(hash: PinHash): Buffer {
  return Buffer.concat([
    Buffer.from([hash.params.log2N, hash.params.r, hash.params.p]),
    hash.salt,
    hash.hash,
  ]);
}

function deserialise(plain: Buffer): PinHash {
  const [log2N, r, p] = plain;
  const expected = 3 + PIN_SCRYPT.saltLength + PIN_SCRYPT.keyLength;
  if (log2N === undefined || r === undefined || p === undefined || plain.length !== expected) {
    throw new PinRecordError('PIN record has an unexpected layout');
  }
  return {
    params: { log2N, r, p },
    salt: plain.subarray(3, 3 + PIN_SCRYPT.saltLength),
    hash: plain.subarray(3 + PIN_SCRYPT.saltLength),
  };
}

/**
 * Creates the PIN crypto over a keyring (see {@link loadPinKeyring}), hashing new PINs at `cost` (default:
 * the production cost). Records of another cost still verify, and are re-hashed at `cost` when they do.
 */
export function createPinCrypto(keyring: PinKeyring, cost: ScryptCost = PIN_SCRYPT): PinCrypto {
  const currentKey = keyring.keys.get(keyring.currentId);
  if (currentKey === undefined) throw new Error('PIN keyring has no current key');
  const current: ScryptCost = { log2N: cost.log2N, r: cost.r, p: cost.p };
  const burnSalt = randomBytes(PIN_SCRYPT.saltLength);

  const hash = async (pin: string): Promise<PinHash> => {
    const salt = randomBytes(PIN_SCRYPT.saltLength);
    return { params: current, salt, hash: await runScrypt(pin, salt, current) };
  };

  const encrypt = (value: PinHash, customerId: string): PinRecord => {
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', currentKey, iv);
    cipher.setAAD(associatedData(keyring.currentId, customerId));
    const body = Buffer.concat([cipher.update(serialise(value)), cipher.final()]);
    const record = Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    return { record: record.toString('base64'), keyId: keyring.currentId };
  };

  const decrypt = (stored: PinRecord, customerId: string): PinHash => {
    const key = keyring.keys.get(stored.keyId);
    if (key === undefined) throw new PinRecordError(`PIN record is under unknown key id "${stored.keyId}"`);
    const raw = Buffer.from(stored.record, 'base64');
    if (raw[0] !== VERSION || raw.length <= 1 + IV_LENGTH + TAG_LENGTH) {
      throw new PinRecordError('PIN record has an unknown version or is truncated');
    }
    const iv = raw.subarray(1, 1 + IV_LENGTH);
    const tag = raw.subarray(1 + IV_LENGTH, 1 + IV_LENGTH + TAG_LENGTH);
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(associatedData(stored.keyId, customerId));
    decipher.setAuthTag(tag);
    try {
      return deserialise(
        Buffer.concat([decipher.update(raw.subarray(1 + IV_LENGTH + TAG_LENGTH)), decipher.final()]),
      );
    } catch (cause) {
      if (cause instanceof PinRecordError) throw cause;
      throw new PinRecordError('PIN record failed authentication (wrong key, other customer or tampered)', {
        cause,
      });
    }
  };

  return {
    currentKeyId: keyring.currentId,
    hash,
    encrypt,
    async verify(pin, stored, customerId) {
      const saved = decrypt(stored, customerId);
      const candidate = await runScrypt(pin, saved.salt, saved.params);
      const ok = candidate.length === saved.hash.length && timingSafeEqual(candidate, saved.hash);
      if (!ok) return { ok, replacement: undefined };
      const sameCost =
        saved.params.log2N === current.log2N && saved.params.r === current.r && saved.params.p === current.p;
      if (sameCost && stored.keyId === keyring.currentId) return { ok, replacement: undefined };
      const fresh = sameCost ? saved : await hash(pin);
      return { ok, replacement: encrypt(fresh, customerId) };
    },
    async burn(pin) {
      await runScrypt(pin, burnSalt, current);
    },
  };
}
