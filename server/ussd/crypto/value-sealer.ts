import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { PinKeyring } from './pin-keys.js';

/** Encrypts values kept outside the process (sessions in Redis), so what they carry is never at rest in clear. */
export interface ValueSealer {
  /** `<keyId>.<base64 iv|tag|ciphertext>`; `context` (e.g. the storage key) is bound in as associated data. */
  seal(plain: string, context: string): string;
  /** Reverses {@link seal}; throws {@link SealedValueError} for an unknown key, another context or tampering. */
  open(sealed: string, context: string): string;
}

/** A sealed value that cannot be opened with the configured keys. */
export class SealedValueError extends Error {
  override name = 'SealedValueError';
}

const IV_LENGTH = 12;
const TAG_LENGTH = 16;

/**
 * AES-256-GCM with a random IV, under keys derived (HKDF-SHA256, info = `purpose`) from the PIN keyring:
 * the current key seals, every configured key opens, so a key rotation keeps live sessions readable.
 * A session can hold what a user typed (its accumulated `text` carries PINs), hence the encryption.
 */
export function createValueSealer(keyring: PinKeyring, purpose: string): ValueSealer {
  const derived = new Map<string, Buffer>();
  for (const [id, key] of keyring.keys) {
    derived.set(id, Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `open-oracles:${purpose}`, 32)));
  }
  const currentId = keyring.currentId;
  const current = derived.get(currentId);
  if (current === undefined) throw new Error('keyring has no current key');

  return {
    seal(plain, context) {
      const iv = randomBytes(IV_LENGTH);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${currentId}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed, context) {
      const dot = sealed.indexOf('.');
      const key = dot > 0 ? derived.get(sealed.slice(0, dot)) : undefined;
      if (key === undefined) throw new SealedValueError('sealed value is under an unknown key');
      const raw = Buffer.from(sealed.slice(dot + 1), 'base64');
      if (raw.length < IV_LENGTH + TAG_LENGTH) throw new SealedValueError('sealed value is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_LENGTH));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_LENGTH, IV_LENGTH + TAG_LENGTH));
      try {
        return Buffer.concat([
          decipher.update(raw.subarray(IV_LENGTH + TAG_LENGTH)),
          decipher.final(),
        ]).toString('utf8');
      } catch (cause) {
        throw new SealedValueError('sealed value failed authentication', { cause });
      }
    },
  };
}
