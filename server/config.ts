// A composition root: the only file of the platform that sees every section (the parts', the plugins').
// Everything else types what it reads by its own section's type (PlatformConfig, UssdConfig, …).
import { z } from 'zod';
import { chainConfig } from './chain/config.js';
import { ConfigError, type ConfigSection } from './config-section.js';
import { oracleConfigSections } from './oracle/config-sections.js';
import { platformConfig } from './platform-config.js';
import { ussdConfig } from './ussd/config.js';

export { ConfigError, PART_NAMES, type PartName } from './config-section.js';

/** Every owner's configuration, in the order the reference, .env.example and refusals list them. */
export const CONFIG_SECTIONS = [platformConfig, ussdConfig, chainConfig, ...oracleConfigSections] as const;

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type Shape = Intersection<(typeof CONFIG_SECTIONS)[number]['schema']['shape']>;

/** Every environment variable the service reads: the union of the sections' variables. */
const Variables = z.object(Object.assign({}, ...CONFIG_SECTIONS.map((s) => s.schema.shape)) as Shape);

export type Config = z.output<typeof Variables>;

type Section = ConfigSection<z.AnyZodObject, Config>;

/** Marks an issue as a broken production rule, which loadConfig reports apart from invalid values. */
const REFUSAL = { production: true };
const isRefusal = (issue: z.ZodIssue): boolean =>
  issue.code === 'custom' && issue.params?.['production'] === true;

/**
 * A section's rules as a refinement: production rules in production (marked), its other checks always. Zod
 * runs refinements once no value failed its type (a failed check still lets them run, and loadConfig then
 * reports the invalid values alone).
 */
function refinementOf(section: Section) {
  return (config: Config, ctx: z.RefinementCtx): void => {
    section.refine?.(config, ctx);
    if (config.NODE_ENV !== 'production') return;
    for (const rule of section.production ?? []) {
      const message = rule.refuse(config);
      if (message !== undefined) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message,
          path: [rule.variables[0] ?? ''],
          params: REFUSAL,
        });
      }
    }
  };
}

/** The platform's configuration: its variables, refined by every section's rules. */
const ConfigSchema = CONFIG_SECTIONS.reduce<z.ZodType<Config, z.ZodTypeDef, unknown>>(
  (refined, section) => refined.superRefine(refinementOf(section)),
  Variables,
).transform((config) => {
  for (const section of CONFIG_SECTIONS as readonly Section[]) section.finalize?.(config);
  return config;
});

/**
 * Parses the environment. Throws a ConfigError naming every bad variable, or, when every value is valid,
 * every production rule the configuration breaks.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const invalid = parsed.error.issues.filter((i) => !isRefusal(i));
  if (invalid.length) {
    const lines = invalid.map((i) => `  ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const refusals = parsed.error.issues.map((i) => i.message);
  throw new ConfigError(`Refusing to start in production without:\n  ${refusals.join('\n  ')}`);
}

/**
 * What a production configuration runs that is fit for development only, each named with the variable that
 * changes it; server.ts logs them in one warning at start-up. Empty outside production.
 */
export function productionWarnings(config: Config): string[] {
  if (config.NODE_ENV !== 'production') return [];
  return (CONFIG_SECTIONS as readonly Section[]).flatMap((s) => s.warnings?.(config) ?? []);
}
