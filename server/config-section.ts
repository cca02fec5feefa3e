import type { z } from 'zod';

/** The parts of the service this build can serve: spec parts A, B, and C's agent service (with D's plugins). */
export const PART_NAMES = ['ussd', 'chain', 'oracle'] as const;
export type PartName = (typeof PART_NAMES)[number];

/** What every section's rules read besides its own variables: the platform's environment and parts. */
export interface PlatformFacts {
  NODE_ENV: 'development' | 'test' | 'production';
  ENABLED_PARTS: PartName[];
}

/**
 * A rule a production configuration must keep. Production refuses to start while one is broken, naming every
 * broken rule's line in one message; docs/configuration.md states `rule` in the row of each of `variables`.
 */
export interface ProductionRule<C> {
  variables: readonly (keyof C & string)[];
  /** The rule as the configuration reference states it. */
  rule: string;
  /** The line of the refusal (what is missing and how to make it), or undefined when `config` keeps the rule. */
  refuse: (config: C) => string | undefined;
}

/**
 * The configuration of one owner (the platform, a part, a plugin): its variables as a zod object, each with
 * a `.describe()` (the reference and .env.example print it), and the rules the platform's schema refines
 * with. `C` is what its rules read: its own variables, the platform facts and any other it names.
 */
export interface ConfigSection<Schema extends z.AnyZodObject, C> {
  /** Heading of its table in docs/configuration.md and of its block in .env.example. */
  title: string;
  schema: Schema;
  /** Checked in production only. */
  production?: readonly ProductionRule<C>[];
  /** Checked in every environment, after the variables parsed (e.g. a variable that needs another). */
  refine?: (config: C, ctx: z.RefinementCtx) => void;
  /** What production runs that is fit for development only, each naming the variable that changes it. */
  warnings?: (config: C) => string[];
  /** Runs on the parsed configuration once every rule passed (e.g. a value that means "unset"). */
  finalize?: (config: C) => void;
}

/** The configuration is unusable (an invalid value, a broken production rule, a bad key file): the service does not start. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
