// Text forms of the values the Cosmos REST gateway renders specially: google.protobuf.Timestamp and
// Duration as Go's jsonpb writes them, and cosmos.Dec (LegacyDec), whose gRPC wire form is the
// 10^18-scaled integer while REST shows a decimal with 18 fraction digits.

/** Timestamp / Duration as ts-proto decodes them with forceLong=string. */
export interface SecondsNanos {
  seconds: string;
  nanos: number;
}

const DEC_PLACES = 18;

/**
 * RFC 3339 in UTC like Go's jsonpb: the fraction only when non-zero, in groups of 3, 6 or 9 digits.
 *
 * @example formatTimestamp({ seconds: '1704164645', nanos: 0 }) === '2024-01-02T03:04:05Z'
 */
export function formatTimestamp(ts: SecondsNanos): string {
  const base = new Date(Number(ts.seconds) * 1000).toISOString().slice(0, 19);
  return `${base}${fraction(ts.nanos)}Z`;
}

/** Parses an RFC 3339 date-time (any offset, up to 9 fraction digits) into seconds and nanos. */
export function parseTimestamp(text: string): SecondsNanos {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(ms)) throw new Error(`not an RFC 3339 timestamp: ${JSON.stringify(text)}`);
  return { seconds: String(ms / 1000), nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}

/**
 * Seconds with an `s` suffix like Go's jsonpb: `3600s`, `1.500s`, `-0.000000001s`.
 */
export function formatDuration(d: SecondsNanos): string {
  const seconds = BigInt(d.seconds);
  const negative = seconds < 0n || d.nanos < 0;
  const abs = seconds < 0n ? -seconds : seconds;
  const frac = fraction(Math.abs(d.nanos));
  return `${negative ? '-' : ''}${abs}${frac}s`;
}

/** Parses `<seconds>[.<fraction>]s` into seconds and nanos (both negative for a negative duration). */
export function parseDuration(text: string): SecondsNanos {
  const m = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  const sign = m[1] ? -1 : 1;
  const nanos = Number((m[3] ?? '').padEnd(9, '0'));
  return { seconds: String(BigInt(m[2] ?? '0') * BigInt(sign)), nanos: nanos === 0 ? 0 : sign * nanos };
}

/**
 * LegacyDec from its gRPC wire text (scaled integer) to REST text; empty means zero. Text that already
 * has a decimal point (not what a Go node sends) is passed through.
 *
 * @example formatDec('100000000000000000') === '0.100000000000000000'
 */
export function formatDec(wire: string): string {
  if (!/^-?\d*$/.test(wire)) return wire;
  const negative = wire.startsWith('-');
  const digits = (negative ? wire.slice(1) : wire).padStart(DEC_PLACES + 1, '0');
  const whole = digits.slice(0, -DEC_PLACES).replace(/^0+(?=\d)/, '');
  return `${negative ? '-' : ''}${whole}.${digits.slice(-DEC_PLACES)}`;
}

/** LegacyDec from REST text (at most 18 fraction digits) to its gRPC wire text. */
export function parseDec(text: string): string {
  const m = /^(-)?(\d+)(?:\.(\d{0,18}))?$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
  const scaled = BigInt(`${m[2] ?? '0'}${(m[3] ?? '').padEnd(DEC_PLACES, '0')}`);
  return scaled === 0n ? '0' : `${m[1] ?? ''}${scaled}`;
}

function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const nine = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${nine.slice(0, 3)}`;
  if (nanos % 1_000 === 0) return `.${nine.slice(0, 6)}`;
  return `.${nine}`;
}
