import type { Config } from '../config.js';
import type { DbTarget } from './index.js';

/** The database the configuration names: PostgreSQL at DATABASE_URL (with its bounds), or embedded PGlite. */
export function dbTargetFromConfig(config: Config): DbTarget {
  return config.DATABASE_URL
    ? {
        kind: 'postgres',
        url: config.DATABASE_URL,
        bounds: {
          statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
          acquireTimeoutMs: config.DB_ACQUIRE_TIMEOUT_MS,
        },
      }
    : { kind: 'pglite', dataDir: config.PGLITE_DATA_DIR };
}
