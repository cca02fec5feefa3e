import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config-section.js';
import type { UssdGatewayConfig } from '../config.js';
import type { Logger } from '../../logger.js';

/** AES-256 keys for PIN records: the current key encrypts, every listed key decrypts. */
export interface PinKeyring {
  currentId: string;
  /** Every usable key by id, the current one included. */
  keys: ReadonlyMap<string, Buffer>;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const HEX = /^[0-9a-fA-F]{64}$/;
const GENERATE_HINT = 'generate one with: openssl rand -base64 32 (or openssl rand -hex 32)';

/** File under DATA_DIR where a development server keeps the PIN key it generated (`<id>:<base64>`). */
export const DEV_PIN_KEY_FILE = 'pin-encryption-key';

/**
 * Decodes a key of exactly 32 bytes written in base64 (44 characters) or hex (64 characters), naming the
 * variable and the expected form in the error. Never echoes the value.
 */
function decodeKey(value: string, variable: string): Buffer {
  const trimmed = value.trim();
  if (HEX.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const key = BASE64.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== 32 || key.toString('base64') !== trimmed) {
    throw new ConfigError(
      `${variable} must be 32 random bytes written as base64 (44 characters) or hex (64 characters); ` +
        `it is ${trimmed.length} characters that decode to ${key.length} bytes; ${GENERATE_HINT}`,
    );
  }
  return key;
}

/**
 * The development key kept under `dataDir`: read when a previous start generated it, else generated once
 * and written with mode 0600 (a log line says where), so PINs stored in development survive a restart.
 */
function devPinKey(dataDir: string, logger: Logger): { id: string; key: Buffer } {
  const file = path.join(dataDir, DEV_PIN_KEY_FILE);
  const parse = (text: string): { id: string; key: Buffer } => {
    const [id = '', encoded = ''] = text.trim().split(':');
    if (!KEY_ID.test(id)) throw new ConfigError(`${file} is not <id>:<key>; delete it to generate a new key`);
    return { id, key: decodeKey(encoded, file) };
  };
  try {
    return parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const id = `dev-${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(file, `${id}:${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    logger.info(
      { file, keyId: id },
      'PIN_ENCRYPTION_KEY is not set: generated a development PIN key and kept it in DATA_DIR (mode 0600); set PIN_ENCRYPTION_KEY in production',
    );
  } catch (err) {
    // Another process generated it first: use theirs.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return parse(readFileSync(file, 'utf8'));
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
 * Builds the keyring from the configuration. Production refuses to start without a valid key. In
 * development a missing key is generated once and kept in DATA_DIR (see {@link devPinKey}), so accounts
 * survive a restart. In tests it is a random in-memory one under a fresh `dev-…` id, with a warning.
 * Neither the key nor any part of it is ever logged.
 */
export function loadPinKeyring(
  config: Pick<
    UssdGatewayConfig,
    'NODE_ENV' | 'PIN_ENCRYPTION_KEY' | 'PIN_ENCRYPTION_KEY_ID' | 'PIN_PREVIOUS_KEYS'
  > &
    Partial<Pick<UssdGatewayConfig, 'DATA_DIR'>>,
  logger: Logger,
): PinKeyring {
  const keys = parsePreviousKeys(config.PIN_PREVIOUS_KEYS);
  let currentId = config.PIN_ENCRYPTION_KEY_ID;
  let current: Buffer;
  if (config.PIN_ENCRYPTION_KEY !== undefined) {
    current = decodeKey(config.PIN_ENCRYPTION_KEY, 'PIN_ENCRYPTION_KEY');
  } else if (config.NODE_ENV === 'production') {
    throw new ConfigError(`Refusing to start in production without PIN_ENCRYPTION_KEY; ${GENERATE_HINT}`);
  } else if (config.NODE_ENV === 'development') {
    ({ id: currentId, key: current } = devPinKey(config.DATA_DIR ?? './data', logger));
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
