import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The shapes an environment variable's text takes, for every part's configuration schema. Each reads an
 * empty value (`NAME=` as an emptied .env line leaves it) as unset.
 */

/** `true`/`false`/`1`/`0`; anything else is a configuration error. */
export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1'));

/** One of `values`, or `fallback` when unset. */
export const choice = <const V extends readonly [string, ...string[]]>(values: V, fallback: V[number]) =>
  z
    .enum([...values, ''])
    .optional()
    .transform((v): V[number] => (v === undefined || v === '' ? fallback : v));

/** Comma-separated list; empty items dropped. */
export const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** Text that may be unset. */
export const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

export const optionalUrl = optionalText.pipe(z.string().url().optional());

/** Text that may be unset and, when set, matches `pattern`. */
export const optionalMatching = (pattern: RegExp, message: string) =>
  optionalText.pipe(z.string().regex(pattern, message).optional());

/** An IP address, or a network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`). */
export function isAddressOrCidr(value: string): boolean {
  const [address = '', bits, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** A comma-separated list of addresses and CIDRs. */
export const addressList = list.pipe(
  z.array(
    z
      .string()
      .refine(isAddressOrCidr, 'an IPv4 or IPv6 address, or a CIDR like 196.201.214.0/24 or 2001:db8::/32'),
  ),
);

/** A whole number in `[min, max]` with a default. */
export const int = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
