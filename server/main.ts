import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startServer, type RunningServer } from './server.js';

// The only file that reads the environment; everything else receives a Config.
const bootLogger = createLogger(process.env['LOG_LEVEL'] ?? 'info');
let server: RunningServer | undefined;
let stopping = false;
/** Time left after the drain for closing parts, Redis and the database before the process exits anyway. */
const CLOSE_GRACE_MS = 5000;
let drainTimeoutMs = 10_000;

/**
 * Graceful shutdown (server.ts `close()`): stop accepting, `/health` 503 `draining`, let in-flight requests
 * finish within DRAIN_TIMEOUT_MS, close parts, Redis and the database, then exit.
 */
function stop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  bootLogger.info({ signal, drainTimeoutMs }, 'shutting down: draining');
  const force = setTimeout(() => {
    bootLogger.error('shutdown did not finish in time; exiting');
    process.exit(1);
  }, drainTimeoutMs + CLOSE_GRACE_MS).unref();
  (server?.close() ?? Promise.resolve())
    .then(() => {
      clearTimeout(force);
      process.exit(0);
    })
    .catch((err: unknown) => {
      bootLogger.error({ err }, 'shutdown failed');
      process.exit(1);
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
  // `.env` in the working directory, when present, as .env.example promises; variables already in the
  // environment win (process.loadEnvFile never overrides them).
  if (existsSync('.env')) {
    process.loadEnvFile('.env');
    bootLogger.info('read .env');
  }
  const config = loadConfig(process.env);
  drainTimeoutMs = config.DRAIN_TIMEOUT_MS;
  server = await startServer(config, { logger: createLogger(config.LOG_LEVEL) });
  if (stopping) await server.close();
  else collectStartUpGarbage();
} catch (err) {
  if (err instanceof ConfigError) bootLogger.fatal(err.message);
  else bootLogger.fatal({ err }, 'failed to start');
  process.exit(1);
}
