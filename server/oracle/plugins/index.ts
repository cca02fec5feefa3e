import type { OraclePlugin } from '../runtime/plugin.js';
import { creditsPlugin } from './credits/index.js';
import { memoryPlugin } from './memory/index.js';
import { userPreferencesPlugin } from './user-preferences/index.js';

/** The plugins that ship with the service, each switched by `features` / ORACLE_FEATURES. */
export function builtInPlugins(): OraclePlugin[] {
  return [userPreferencesPlugin(), memoryPlugin(), creditsPlugin()];
}
