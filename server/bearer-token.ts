import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER = /^Bearer +(\S+) *$/i;

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 6750), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  return BEARER.exec(header ?? '')?.[1];
}

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * A constant-time check against one configured secret. Both sides are hashed to 32 bytes first, so
 * neither the content nor the length of the secret leaks through timing.
 */
export function secretMatcher(expected: string): (given: string) => boolean {
  const digest = sha256(expected);
  return (given) => timingSafeEqual(sha256(given), digest);
}
