import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';

// The only file that reads the environment; everything else receives a Config.
const bootLogger = createLogger(process.env['LOG_LEVEL'] ?? 'info');

try {
  const config = loadConfig(process.env);
  const server = await startServer(config, { logger: createLogger(config.LOG_LEVEL) });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    bootLogger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    server
      .close()
      .then(() => {
        clearTimeout(force);
        process.exit(0);
      })
      .catch((err: unknown) => {
        bootLogger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  if (err instanceof ConfigError) {
    bootLogger.fatal(err.message);
  } else {
    bootLogger.fatal({ err }, 'failed to start');
  }
  process.exit(1);
}
