// The agent service's configuration as server/config.ts composes it: its own section, each built-in plugin's.
// Above the plugins (it imports their sections), so nothing the plugins use imports it: create-oracle-app.ts
// hands the list to the runtime's boot check (runtime/features.ts).
import { creditsConfig } from './plugins/credits/config.js';
import { memoryConfig } from './plugins/memory/config.js';
import { oracleConfig } from './config.js';

/** The sections of the agent service: its own, then each built-in plugin's (its manifest carries it too). */
export const oracleConfigSections = [oracleConfig, memoryConfig, creditsConfig] as const;
