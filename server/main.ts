import { ConfigError, loadConfig } from './config.js';
import { readDotEnv } from './env-file.js';
import { createLogger, prettyLogs, type LogFormat, type Logger } from './logger.js';
import { startServer, type RunningServer } from './server.js';

// The only file that reads the environment; everything else receives a Config. `.env` in the working
// directory, when present, is read first (the real environment wins), as every operator tool does too.
let dotEnv: string | undefined;
/** Why `.env` could not be read (a service user without read access to it, say): the start fails on it below. */
let dotEnvError: string | undefined;
try {
  dotEnv = readDotEnv();
} catch (err) {
  dotEnvError = `cannot read .env in ${process.cwd()} as uid ${process.getuid?.() ?? '?'}: ${err instanceof Error ? err.message : String(err)} (the server reads it itself: give it to the service user, mode 0600; docs/operating.md, "Configure")`;
}
const rawFormat = process.env['LOG_FORMAT'];
/** Until the configuration is read: the level and format the environment asks for, if they are valid. */
let logger: Logger = createLogger(
  /^(fatal|error|warn|info|debug|trace|silent)$/.test(process.env['LOG_LEVEL'] ?? '')
    ? (process.env['LOG_LEVEL'] as string)
    : 'info',
  undefined,
  {
    pretty: prettyLogs(
      rawFormat === 'json' || rawFormat === 'pretty' ? rawFormat : 'auto',
      process.env['NODE_ENV'] ?? 'development',
      Boolean(process.stdout.isTTY),
    ),
  },
);
let server: RunningServer | undefined;
let stopping = false;
/** Time left after the drain for closing parts, Redis and the database before the process exits anyway. */
const CLOSE_GRACE_MS = 5000;
let prestopDelayMs = 0;
let drainTimeoutMs = 10_000;

/** The last line of the log, then the exit. */
function exit(code: number, signal: NodeJS.Signals | undefined, started: number): never {
  logger.info(
    { exitCode: code, signal, ms: Date.now() - started, uptimeS: Math.round(process.uptime()) },
    `stopped (exit ${code})`,
  );
  process.exit(code);
}

/**
 * Graceful shutdown (server.ts `close()`): `/health` 503 `draining` at once, the pre-stop delay
 * (PRESTOP_DELAY_MS), then stop accepting, let in-flight requests finish within DRAIN_TIMEOUT_MS, close
 * parts, Redis and the database, then exit with a last `stopped` line.
 */
function stop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  logger.info({ signal, prestopDelayMs, drainTimeoutMs }, 'shutting down: draining');
  const force = setTimeout(
    () => {
      logger.error('shutdown did not finish in time; exiting');
      exit(1, signal, started);
    },
    prestopDelayMs + drainTimeoutMs + CLOSE_GRACE_MS,
  ).unref();
  (server?.close() ?? Promise.resolve())
    .then(() => {
      clearTimeout(force);
      exit(0, signal, started);
    })
    .catch((err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      exit(1, signal, started);
    });
}

/**
 * One full garbage collection once the server is up: start-up (compiling modules, migrations, reading
 * menus) leaves a young generation grown to its largest size and garbage behind, which an idle server
 * would otherwise keep resident. Costs one pause of a few milliseconds before the first request; nothing
 * on the request path. `npm start` runs node with --expose-gc for it; without the flag it does nothing.
 */
function collectStartUpGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

// Registered before any await, so a signal during start-up is handled too.
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

try {
  if (dotEnvError !== undefined) throw new ConfigError(dotEnvError);
  const config = loadConfig(process.env);
  const format: LogFormat = config.LOG_FORMAT;
  logger = createLogger(config.LOG_LEVEL, undefined, {
    pretty: prettyLogs(format, config.NODE_ENV, Boolean(process.stdout.isTTY)),
  });
  if (dotEnv) logger.info({ file: dotEnv }, 'read .env');
  prestopDelayMs = config.PRESTOP_DELAY_MS;
  drainTimeoutMs = config.DRAIN_TIMEOUT_MS;
  server = await startServer(config, { logger });
  if (stopping) await server.close();
  else collectStartUpGarbage();
} catch (err) {
  if (err instanceof ConfigError) logger.fatal(err.message);
  else logger.fatal({ err }, 'failed to start');
  logger.info({ exitCode: 1 }, 'stopped (exit 1)');
  process.exit(1);
}
