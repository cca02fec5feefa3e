import path from 'node:path';
import type { PlatformConfig } from '../platform-config.js';
import { redactUrl } from '../redact-url.js';
import type { DbTarget } from './index.js';

/** The database the configuration names: PostgreSQL at DATABASE_URL (with its bounds), or embedded PGlite. */
export function dbTargetFromConfig(config: PlatformConfig): DbTarget {
  return config.DATABASE_URL
    ? {
        kind: 'postgres',
        url: config.DATABASE_URL,
        poolSize: config.DB_POOL_SIZE,
        bounds: {
          statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
          acquireTimeoutMs: config.DB_ACQUIRE_TIMEOUT_MS,
        },
      }
    : { kind: 'pglite', dataDir: config.PGLITE_DATA_DIR };
}

/**
 * Where a database target is, for the start-up line and the tools: `PostgreSQL postgres://app:***@db:5432/gw`
 * (password hidden) or `embedded PGlite in /abs/path/data/pglite`.
 */
export function describeDbTarget(target: DbTarget): string {
  if (target.kind === 'postgres') {
    return `PostgreSQL ${redactUrl(target.url)}${target.schema ? ` (schema ${target.schema})` : ''}`;
  }
  return target.dataDir ? `embedded PGlite in ${path.resolve(target.dataDir)}` : 'embedded PGlite in memory';
}
