import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from '../../config.js';
import type { Logger } from '../../logger.js';

/** AES-256 keys for PIN records: the current key encrypts, every listed key decrypts. */
export interface PinKeyring {
  currentId: string;
  /** Every usable key by id, the current one included. */
  keys: ReadonlyMap<string, Buffer>;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const GENERATE_HINT = 'generate one with: openssl rand -base64 32';

/** Decodes a base64 key and insists on exactly 32 bytes, naming the variable in the error. */
function decodeKey(value: string, variable: string): Buffer {
  const trimmed = value.trim();
  const key = BASE64.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== 32 || key.toString('base64') !== trimmed) {
    throw new ConfigError(
      `${variable} must be the base64 encoding of exactly 32 random bytes (got ${key.length} bytes); ${GENERATE_HINT}`,
    );
  }
  return key;
}

/** Parses `PIN_PREVIOUS_KEYS`: comma-separated `id:base64key` pairs kept to decrypt older records. */
function parsePreviousKeys(list: string | undefined): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const item of (list ?? '').split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const colon = item.indexOf(':');
    const id = colon > 0 ? item.slice(0, colon) : '';
    if (!KEY_ID.test(id)) {
      throw new ConfigError(
        'PIN_PREVIOUS_KEYS must be a comma-separated list of id:base64key (id: A-Z a-z 0-9 _ -)',
      );
    }
    if (keys.has(id)) throw new ConfigError(`PIN_PREVIOUS_KEYS lists key id "${id}" twice`);
    keys.set(id, decodeKey(item.slice(colon + 1), `PIN_PREVIOUS_KEYS (key "${id}")`));
  }
  return keys;
}

/**
 * Builds the keyring from the configuration. Production refuses to start without a valid key. Elsewhere a
 * missing key is replaced by a random in-memory one under a fresh `dev-…` id, with a warning: PINs set in
 * such a run cannot be verified after a restart. Neither the key nor any part of it is ever logged.
 */
export function loadPinKeyring(
  config: Pick<Config, 'NODE_ENV' | 'PIN_ENCRYPTION_KEY' | 'PIN_ENCRYPTION_KEY_ID' | 'PIN_PREVIOUS_KEYS'>,
  logger: Logger,
): PinKeyring {
  const keys = parsePreviousKeys(config.PIN_PREVIOUS_KEYS);
  let currentId = config.PIN_ENCRYPTION_KEY_ID;
  let current: Buffer;
  if (config.PIN_ENCRYPTION_KEY !== undefined) {
    current = decodeKey(config.PIN_ENCRYPTION_KEY, 'PIN_ENCRYPTION_KEY');
  } else if (config.NODE_ENV === 'production') {
    throw new ConfigError(`Refusing to start in production without PIN_ENCRYPTION_KEY; ${GENERATE_HINT}`);
  } else {
    current = randomBytes(32);
    currentId = `dev-${randomBytes(4).toString('hex')}`;
    logger.warn(
      { keyId: currentId },
      'PIN_ENCRYPTION_KEY is not set: using a random in-memory key. PINs set now cannot be verified after a restart.',
    );
  }
  const previous = keys.get(currentId);
  if (previous !== undefined && !previous.equals(current)) {
    throw new ConfigError(`PIN_PREVIOUS_KEYS lists the current key id "${currentId}" with a different key`);
  }
  keys.set(currentId, current);
  return { currentId, keys };
}
