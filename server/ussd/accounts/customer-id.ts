import { randomInt } from 'node:crypto';

/** Digits and capitals without the look-alikes 0/O, 1/I/L and U (read as V): 30 symbols. */
const CUSTOMER_ID_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `C` + 8 symbols of {@link CUSTOMER_ID_ALPHABET} (30^8 ≈ 6.6·10^11 ids). */
export const CUSTOMER_ID_PATTERN = /^C[23456789ABCDEFGHJKMNPQRSTVWXYZ]{8}$/;

/** A new customer id from a cryptographic random source, e.g. `C7K2M9Q4X`. Callers retry on collision. */
export function newCustomerId(): string {
  let id = 'C';
  for (let i = 0; i < 8; i++) id += CUSTOMER_ID_ALPHABET[randomInt(CUSTOMER_ID_ALPHABET.length)];
  return id;
}

/** Normalises what a user typed (case, spaces) to the stored form; returns undefined if it cannot be an id. */
export function normaliseCustomerId(input: string): string | undefined {
  const id = input.trim().toUpperCase();
  return CUSTOMER_ID_PATTERN.test(id) ? id : undefined;
}
