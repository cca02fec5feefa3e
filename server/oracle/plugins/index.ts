import type { OraclePlugin } from '../runtime/plugin.js';
import { userPreferencesPlugin } from './user-preferences/index.js';

/** The plugins that ship with the service, each switched by `features` / ORACLE_FEATURES. */
export function builtInPlugins(): OraclePlugin[] {
  return [userPreferencesPlugin()];
}
