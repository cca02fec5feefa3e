import { ConfigError, loadConfig, type Config } from '../../../server/config.js';
import { dbTargetFromConfig, describeDbTarget } from '../../../server/db/target.js';
import type { DbTarget } from '../../../server/db/index.js';
import { readDotEnv } from '../../../server/env-file.js';

/** The configuration a tool works with: exactly the server's, from the same sources. */
export interface ToolConfig {
  config: Config;
  /** The `.env` read, if there was one. */
  dotEnv: string | undefined;
  /** The database the configuration names, and where it is in words (password hidden). */
  target: DbTarget;
  database: string;
}

/** A configuration the tool must not or cannot work with; the message says why. */
export class ToolConfigError extends Error {
  override name = 'ToolConfigError';
}

/**
 * Reads `.env` in the working directory as `npm start` does (the real environment wins), then the
 * configuration through the server's own `loadConfig`, so a tool and the server always agree on the database,
 * the keys and the rest. Production never works on the embedded database (loadConfig refuses production
 * without DATABASE_URL; checked here again, by name).
 */
export function loadToolConfig(env: NodeJS.ProcessEnv = process.env): ToolConfig {
  const dotEnv = readDotEnv();
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      throw new ToolConfigError(
        `${err.message}\n(the configuration of \`npm start\`: the environment${dotEnv ? ` and ${dotEnv}` : ', no .env in this directory'})`,
      );
    }
    throw err;
  }
  const target = dbTargetFromConfig(config);
  if (config.NODE_ENV === 'production' && target.kind !== 'postgres') {
    throw new ToolConfigError(
      'NODE_ENV is production: refusing to work on the embedded database (set DATABASE_URL)',
    );
  }
  return { config, dotEnv, target, database: describeDbTarget(target) };
}

/** The line a tool prints first: which configuration and which database it works on. */
export function describeToolConfig({ dotEnv, database, config }: ToolConfig): string {
  return `Database: ${database} (NODE_ENV=${config.NODE_ENV}; ${dotEnv ? `read ${dotEnv}` : 'no .env here'})`;
}
