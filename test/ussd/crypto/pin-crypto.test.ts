import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { ConfigError, loadConfig } from '../../../server/config.js';
import type { Db } from '../../../server/db/index.js';
import type { PartContext } from '../../../server/part.js';
import type { UssdGatewayConfig } from '../../../server/ussd/config.js';
import { createUssdPart } from '../../../server/ussd/part.js';
import { createLogger } from '../../../server/logger.js';
import { createPinCrypto, PinRecordError, type PinHash } from '../../../server/ussd/crypto/pin-crypto.js';
import { DEV_PIN_KEY_FILE, loadPinKeyring, type PinKeyring } from '../../../server/ussd/crypto/pin-keys.js';

const silent = createLogger('silent');
const key = (): string => randomBytes(32).toString('base64');
const keyring = (current: string, id = 'k1', previous?: string): PinKeyring =>
  loadPinKeyring(
    {
      NODE_ENV: 'production',
      PIN_ENCRYPTION_KEY: current,
      PIN_ENCRYPTION_KEY_ID: id,
      PIN_PREVIOUS_KEYS: previous,
    },
    silent,
  );

describe('PIN crypto', () => {
  const crypto = createPinCrypto(keyring(key()));

  it('verifies the right PIN and refuses a wrong one', async () => {
    const stored = crypto.encrypt(await crypto.hash('48213'), 'C7K2M9Q4X');
    expect(stored.keyId).toBe('k1');
    expect(await crypto.verify('48213', stored, 'C7K2M9Q4X')).toEqual({ ok: true, replacement: undefined });
    expect(await crypto.verify('48214', stored, 'C7K2M9Q4X')).toEqual({ ok: false, replacement: undefined });
    expect(await crypto.verify('', stored, 'C7K2M9Q4X')).toMatchObject({ ok: false });
  });

  it('never gives equal records for equal PINs: random salt and random IV', async () => {
    const a = crypto.encrypt(await crypto.hash('48213'), 'C7K2M9Q4X');
    const b = crypto.encrypt(await crypto.hash('48213'), 'C7K2M9Q4X');
    const hash = await crypto.hash('48213');
    const c = crypto.encrypt(hash, 'C7K2M9Q4X');
    const d = crypto.encrypt(hash, 'C7K2M9Q4X');
    expect(new Set([a.record, b.record, c.record, d.record]).size).toBe(4);
    expect(Buffer.from(a.record, 'base64').toString('latin1')).not.toContain('48213');
  });

  it('binds a record to its customer: copied onto another customer it does not open', async () => {
    const stored = crypto.encrypt(await crypto.hash('48213'), 'C7K2M9Q4X');
    await expect(crypto.verify('48213', stored, 'C8GGHT7SH')).rejects.toBeInstanceOf(PinRecordError);
  });

  it('rejects tampered, truncated and unknown-key records', async () => {
    const stored = crypto.encrypt(await crypto.hash('48213'), 'C7K2M9Q4X');
    const raw = Buffer.from(stored.record, 'base64');
    raw[raw.length - 1]! ^= 1;
    await expect(
      crypto.verify('48213', { ...stored, record: raw.toString('base64') }, 'C7K2M9Q4X'),
    ).rejects.toThrow(PinRecordError);
    await expect(crypto.verify('48213', { ...stored, record: 'AQ==' }, 'C7K2M9Q4X')).rejects.toThrow(
      PinRecordError,
    );
    await expect(crypto.verify('48213', { ...stored, keyId: 'k9' }, 'C7K2M9Q4X')).rejects.toThrow(
      /unknown key id "k9"/,
    );
  });

  it('a record made under another key does not open', async () => {
    const other = createPinCrypto(keyring(key()));
    const stored = other.encrypt(await other.hash('48213'), 'C7K2M9Q4X');
    await expect(crypto.verify('48213', stored, 'C7K2M9Q4X')).rejects.toThrow(PinRecordError);
  });

  it('rotates keys: an old record still verifies and comes back re-encrypted under the current key', async () => {
    const oldKey = key();
    const before = createPinCrypto(keyring(oldKey, 'k1'));
    const stored = before.encrypt(await before.hash('48213'), 'C7K2M9Q4X');
    const after = createPinCrypto(keyring(key(), 'k2', `k1:${oldKey}`));
    const result = await after.verify('48213', stored, 'C7K2M9Q4X');
    expect(result.ok).toBe(true);
    expect(result.replacement?.keyId).toBe('k2');
    expect(await after.verify('48213', result.replacement!, 'C7K2M9Q4X')).toEqual({
      ok: true,
      replacement: undefined,
    });
    expect(await after.verify('11111', stored, 'C7K2M9Q4X')).toEqual({ ok: false, replacement: undefined });
  });

  it('re-hashes a correct PIN whose record has an older scrypt cost', async () => {
    const weak: PinHash = { ...(await crypto.hash('48213')), params: { log2N: 10, r: 8, p: 1 } };
    const { scrypt } = await import('node:crypto');
    const hash = await new Promise<Buffer>((resolve, reject) =>
      scrypt('48213', weak.salt, 32, { N: 1024, r: 8, p: 1 }, (err, k) => (err ? reject(err) : resolve(k))),
    );
    const stored = crypto.encrypt({ ...weak, hash }, 'C7K2M9Q4X');
    const result = await crypto.verify('48213', stored, 'C7K2M9Q4X');
    expect(result.ok).toBe(true);
    expect(result.replacement).toBeDefined();
    expect(await crypto.verify('48213', result.replacement!, 'C7K2M9Q4X')).toEqual({
      ok: true,
      replacement: undefined,
    });
  });
});

describe('PIN keys from the configuration', () => {
  const base = { NODE_ENV: 'production' as const, PIN_ENCRYPTION_KEY_ID: 'k1', PIN_PREVIOUS_KEYS: undefined };

  it.each([
    ['16 bytes', randomBytes(16).toString('base64'), /decode to 16 bytes/],
    ['33 bytes', randomBytes(33).toString('base64'), /decode to 33 bytes/],
    ['not base64', 'not a key at all!', /it is 17 characters that decode to 0 bytes/],
    ['31 bytes of hex', randomBytes(31).toString('hex'), /it is 62 characters/],
  ])('refuses a key of %s with a message naming the expected forms', (_name, value, message) => {
    expect(() => loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: value }, silent)).toThrow(ConfigError);
    expect(() => loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: value }, silent)).toThrow(message);
    expect(() => loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: value }, silent)).toThrow(
      'PIN_ENCRYPTION_KEY must be 32 random bytes written as base64 (44 characters) or hex (64 characters)',
    );
    expect(() => loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: value }, silent)).toThrow(
      /openssl rand -base64 32 \(or openssl rand -hex 32\)/,
    );
  });

  it('accepts 32 bytes as base64 or as hex (either case), and both give the same key', () => {
    const bytes = randomBytes(32);
    const rings = [bytes.toString('base64'), bytes.toString('hex'), bytes.toString('hex').toUpperCase()].map(
      (value) => loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: ` ${value}\n` }, silent),
    );
    for (const ring of rings) expect(ring.keys.get('k1')?.equals(bytes)).toBe(true);
  });

  it('refuses production without a key', () => {
    expect(() => loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: undefined }, silent)).toThrow(
      /Refusing to start in production without PIN_ENCRYPTION_KEY/,
    );
  });

  it('in tests generates an in-memory key and warns, without logging the key', () => {
    let logged = '';
    const logger = createLogger(
      'warn',
      new Writable({
        write(chunk: Buffer, _e, done) {
          logged += chunk.toString();
          done();
        },
      }),
    );
    const ring = loadPinKeyring({ ...base, NODE_ENV: 'test', PIN_ENCRYPTION_KEY: undefined }, logger);
    expect(ring.currentId).toMatch(/^dev-[0-9a-f]{8}$/);
    const generated = ring.keys.get(ring.currentId)!;
    expect(generated).toHaveLength(32);
    expect(logged).toMatch(/PIN_ENCRYPTION_KEY is not set/);
    expect(logged).not.toContain(generated.toString('base64'));
    expect(logged).not.toContain(generated.toString('hex'));
  });

  it('development without a key: generated once, kept in DATA_DIR with mode 0600 and a log line; the next start reads the same key', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pin-key-'));
    try {
      let logged = '';
      const logger = createLogger(
        'info',
        new Writable({
          write(chunk: Buffer, _e, done) {
            logged += chunk.toString();
            done();
          },
        }),
      );
      const config = {
        ...base,
        NODE_ENV: 'development' as const,
        PIN_ENCRYPTION_KEY: undefined,
        DATA_DIR: dataDir,
      };
      const first = loadPinKeyring(config, logger);
      const file = path.join(dataDir, DEV_PIN_KEY_FILE);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(logged).toMatch(/generated a development PIN key and kept it in DATA_DIR/);
      expect(logged).toContain(file);
      const key = first.keys.get(first.currentId)!;
      expect(logged).not.toContain(key.toString('base64'));
      expect(logged).not.toContain(key.toString('hex'));
      logged = '';
      const second = loadPinKeyring(config, logger);
      expect(second.currentId).toBe(first.currentId);
      expect(second.keys.get(second.currentId)?.equals(key)).toBe(true);
      expect(logged).toBe('');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('parses PIN_PREVIOUS_KEYS and refuses malformed lists', () => {
    const [a, b] = [key(), key()];
    const ring = loadPinKeyring(
      {
        ...base,
        PIN_ENCRYPTION_KEY: a,
        PIN_ENCRYPTION_KEY_ID: 'k3',
        PIN_PREVIOUS_KEYS: `k1:${b}, k2:${key()}`,
      },
      silent,
    );
    expect([...ring.keys.keys()].sort()).toEqual(['k1', 'k2', 'k3']);
    expect(ring.currentId).toBe('k3');
    expect(() => loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: a, PIN_PREVIOUS_KEYS: b }, silent)).toThrow(
      /id:base64key/,
    );
    expect(() =>
      loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: a, PIN_PREVIOUS_KEYS: `k0:${b},k0:${b}` }, silent),
    ).toThrow(/twice/);
    expect(() =>
      loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: a, PIN_PREVIOUS_KEYS: 'k0:short' }, silent),
    ).toThrow(/PIN_PREVIOUS_KEYS \(key "k0"\)/);
    expect(() =>
      loadPinKeyring({ ...base, PIN_ENCRYPTION_KEY: a, PIN_PREVIOUS_KEYS: `k1:${b}` }, silent),
    ).toThrow(/current key id "k1" with a different key/);
  });
});

describe('the USSD part at start-up', () => {
  it('refuses to start with a PIN key that is not 32 bytes (before touching the database)', async () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      ENABLED_PARTS: 'ussd',
      DATABASE_URL: 'postgres://unused.invalid/db',
      PIN_ENCRYPTION_KEY: randomBytes(31).toString('base64'),
      USSD_AGGREGATOR_AUTH: 'network',
    });
    const ctx: PartContext<UssdGatewayConfig> = {
      config,
      db: {} as Db,
      logger: silent,
      redis: undefined,
      redisPrefix: '',
      metrics: new Registry(),
    };
    await expect(createUssdPart(ctx)).rejects.toThrow(
      /PIN_ENCRYPTION_KEY must be 32 random bytes written as base64 \(44 characters\) or hex \(64 characters\); it is 44 characters that decode to 31 bytes/,
    );
  });
});
