import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger.js';
import { loadPinKeyring } from '../../../server/ussd/crypto/pin-keys.js';
import { createValueSealer, SealedValueError } from '../../../server/ussd/crypto/value-sealer.js';

const silent = createLogger('silent');
const ring = (key: string, id: string, previous?: string) =>
  loadPinKeyring(
    {
      NODE_ENV: 'production',
      PIN_ENCRYPTION_KEY: key,
      PIN_ENCRYPTION_KEY_ID: id,
      PIN_PREVIOUS_KEYS: previous,
    },
    silent,
  );

describe('value sealer (sessions at rest in Redis)', () => {
  const k1 = randomBytes(32).toString('base64');
  const sealer = createValueSealer(ring(k1, 'k1'), 'ussd-sessions');

  it('round-trips, never gives the same output twice, and hides the content', () => {
    const plain = JSON.stringify({ processedText: '2*2*Jane*00*97531' });
    const a = sealer.seal(plain, 'ussd:session:s1');
    const b = sealer.seal(plain, 'ussd:session:s1');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^k1\./);
    expect(a).not.toContain('97531');
    expect(sealer.open(a, 'ussd:session:s1')).toBe(plain);
  });

  it('refuses another context (a value moved to another key), tampering and unknown keys', () => {
    const sealed = sealer.seal('{}', 'ussd:session:s1');
    expect(() => sealer.open(sealed, 'ussd:session:s2')).toThrow(SealedValueError);
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => sealer.open(`k1.${raw.toString('base64')}`, 'ussd:session:s1')).toThrow(SealedValueError);
    expect(() => sealer.open(sealed.replace(/^k1/, 'k9'), 'ussd:session:s1')).toThrow(/unknown key/);
    expect(() => sealer.open('k1.AA==', 'ussd:session:s1')).toThrow(/truncated/);
  });

  it('opens values sealed under a previous key after a rotation, and uses its own purpose', () => {
    const sealed = sealer.seal('{"a":1}', 'ctx');
    const rotated = createValueSealer(
      ring(randomBytes(32).toString('base64'), 'k2', `k1:${k1}`),
      'ussd-sessions',
    );
    expect(rotated.open(sealed, 'ctx')).toBe('{"a":1}');
    expect(rotated.seal('x', 'ctx')).toMatch(/^k2\./);
    expect(() => createValueSealer(ring(k1, 'k1'), 'other-purpose').open(sealed, 'ctx')).toThrow(
      SealedValueError,
    );
  });
});
