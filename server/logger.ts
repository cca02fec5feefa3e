import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

export type { Logger } from 'pino';

/** Keeps the country code and the last 3 digits: `+254712345678` → `+254******678`. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/^\+/, '');
  if (digits.length <= 6) return '*'.repeat(phone.length);
  const cc = phone.startsWith('+') ? `+${digits.slice(0, 3)}` : digits.slice(0, 3);
  return `${cc}${'*'.repeat(digits.length - 6)}${digits.slice(-3)}`;
}

/** LOG_FORMAT: `json`, `pretty`, or `auto` (see {@link prettyLogs}). */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Whether the server's logs are human-readable lines rather than JSON: `pretty` always, `json` never, `auto`
 * when stdout is a terminal outside production (a developer running `npm start`); a log shipper, a pipe or a
 * file gets JSON.
 */
export function prettyLogs(format: LogFormat, nodeEnv: string, stdoutIsTty: boolean): boolean {
  if (format !== 'auto') return format === 'pretty';
  return stdoutIsTty && nodeEnv !== 'production';
}

/**
 * pino-pretty as a synchronous stream in this process (no worker thread), colourised on a terminal; the same
 * fields as the JSON lines, on one line each. Loaded only when asked for.
 */
function prettyStream(): pino.DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pretty({
    sync: true,
    colorize: process.stdout.isTTY,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
}

/**
 * Structured logs, JSON by default (`pretty`: readable lines through pino-pretty, see {@link prettyLogs}).
 * Secrets are redacted by path as a second line of defence; code must never pass a PIN or a key to the
 * logger in the first place.
 */
export function createLogger(
  level: string,
  destination?: pino.DestinationStream,
  options: { pretty?: boolean } = {},
): Logger {
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
    destination ?? (options.pretty ? prettyStream() : undefined),
  );
}
