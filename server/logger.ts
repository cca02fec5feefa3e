import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Keeps the country code and the last 3 digits: `+254712345678` → `+254******678`. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/^\+/, '');
  if (digits.length <= 6) return '*'.repeat(phone.length);
  const cc = phone.startsWith('+') ? `+${digits.slice(0, 3)}` : digits.slice(0, 3);
  return `${cc}${'*'.repeat(digits.length - 6)}${digits.slice(-3)}`;
}

/**
 * Structured JSON logs. Secrets are redacted by path as a second line of defence; code must never pass a
 * PIN or a key to the logger in the first place.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          'pin',
          '*.pin',
          'body.text',
          'req.headers.authorization',
          '*.authorization',
          'PIN_ENCRYPTION_KEY',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
