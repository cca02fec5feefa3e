import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../server/chain/scalar-format.js';

// formatTimestamp writes the date and time of whole seconds by integer arithmetic, without a Date. It must
// write what `Date#toISOString` writes, for every second it takes that way (0 to the end of year 9999), and
// keep toISOString's text beyond it.

const viaDate = (seconds: number, nanos: number): string => {
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return formatTimestamp({ seconds: '0', nanos }).replace('1970-01-01T00:00:00', base);
};

describe('timestamps by integer arithmetic, as toISOString writes them', () => {
  it.each([
    0, 59, 60, 3599, 3600, 86_399, 86_400, 951_782_399, 951_782_400, 951_868_800, 4_107_542_400,
    1_704_164_645, 253_402_300_799,
  ])('second %i', (seconds) => {
    expect(formatTimestamp({ seconds: String(seconds), nanos: 0 })).toBe(viaDate(seconds, 0));
  });

  it('every second from the epoch to the end of year 9999, any nanos', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 253_402_300_799 }),
        fc.integer({ min: 0, max: 999_999_999 }),
        (s, n) => {
          expect(formatTimestamp({ seconds: String(s), nanos: n })).toBe(viaDate(s, n));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('before the epoch and from year 10000 on, the Date forms', () => {
    expect(formatTimestamp({ seconds: '-1', nanos: 0 })).toBe('1969-12-31T23:59:59Z');
    expect(formatTimestamp({ seconds: '253402300800', nanos: 0 })).toBe(viaDate(253_402_300_800, 0));
  });
});
