import { describe, expect, it } from 'vitest';
import {
  formatDec,
  formatDuration,
  formatTimestamp,
  parseDec,
  parseDuration,
  parseTimestamp,
} from '../../server/chain/scalar-format.js';

describe('Timestamp text like the Go gateway', () => {
  it.each([
    [{ seconds: '1704164645', nanos: 0 }, '2024-01-02T03:04:05Z'],
    [{ seconds: '1704164645', nanos: 123_000_000 }, '2024-01-02T03:04:05.123Z'],
    [{ seconds: '1704164645', nanos: 123_456_000 }, '2024-01-02T03:04:05.123456Z'],
    [{ seconds: '1704164645', nanos: 123_456_789 }, '2024-01-02T03:04:05.123456789Z'],
    [{ seconds: '1704164645', nanos: 1 }, '2024-01-02T03:04:05.000000001Z'],
    [{ seconds: '0', nanos: 0 }, '1970-01-01T00:00:00Z'],
  ])('formats %j as %s and parses it back', (ts, text) => {
    expect(formatTimestamp(ts)).toBe(text);
    expect(parseTimestamp(text)).toEqual(ts);
  });

  it('parses offsets into UTC', () => {
    expect(parseTimestamp('2024-01-02T05:04:05.5+02:00')).toEqual({
      seconds: '1704164645',
      nanos: 500_000_000,
    });
  });

  it('rejects what is not RFC 3339', () => {
    expect(() => parseTimestamp('2024-01-02')).toThrow('not an RFC 3339 timestamp: "2024-01-02"');
  });
});

describe('Duration text like the Go gateway', () => {
  it.each([
    [{ seconds: '3600', nanos: 0 }, '3600s'],
    [{ seconds: '0', nanos: 0 }, '0s'],
    [{ seconds: '1', nanos: 500_000_000 }, '1.500s'],
    [{ seconds: '1', nanos: 1_000 }, '1.000001s'],
    [{ seconds: '-2', nanos: -5 }, '-2.000000005s'],
    [{ seconds: '0', nanos: -500_000_000 }, '-0.500s'],
  ])('formats %j as %s and parses it back', (d, text) => {
    expect(formatDuration(d)).toBe(text);
    expect(parseDuration(text)).toEqual(d);
  });
});

describe('cosmos.Dec (LegacyDec)', () => {
  it.each([
    ['100000000000000000', '0.100000000000000000'],
    ['0', '0.000000000000000000'],
    ['', '0.000000000000000000'],
    ['1500000000000000000', '1.500000000000000000'],
    ['-250000000000000000', '-0.250000000000000000'],
    ['123456789000000000000000', '123456.789000000000000000'],
  ])('wire %j is REST %s', (wire, rest) => {
    expect(formatDec(wire)).toBe(rest);
  });

  it.each([
    ['0.1', '100000000000000000'],
    ['0.100000000000000000', '100000000000000000'],
    ['0', '0'],
    ['0.000000000000000000', '0'],
    ['12', '12000000000000000000'],
  ])('REST %s is wire %j', (rest, wire) => {
    expect(parseDec(rest)).toBe(wire);
  });

  it('passes through text that already has a decimal point', () => {
    expect(formatDec('0.5')).toBe('0.5');
  });
});
