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
  const seconds = Number(ts.seconds);
  const base =
    Number.isInteger(seconds) && seconds >= 0 && seconds < YEAR_10000
      ? utcDateTime(seconds)
      : new Date(seconds * 1000).toISOString().slice(0, 19);
  return ts.nanos === 0 ? `${base}Z` : `${base}${fraction(ts.nanos)}Z`;
}

/** 10000-01-01T00:00:00Z in seconds: from there on `toISOString` writes a six-digit year. */
const YEAR_10000 = 253_402_300_800;

/**
 * `YYYY-MM-DDTHH:MM:SS` of whole seconds since the epoch (0 ≤ s < {@link YEAR_10000}), as `toISOString`
 * writes them, by integer arithmetic (the days-to-civil-date algorithm of H. Hinnant) without a Date: the
 * gateway formats every timestamp of every answer.
 */
function utcDateTime(s: number): string {
  const days = Math.floor(s / 86_400);
  const secs = s - days * 86_400;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hh = Math.floor(secs / 3600);
  const mm = Math.floor((secs - hh * 3600) / 60);
  const ss = secs - hh * 3600 - mm * 60;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}`;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

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
