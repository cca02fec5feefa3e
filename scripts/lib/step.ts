/** Where a generator step runs. */
export interface StepContext {
  /** The repository root (scripts/lib/repo-root.ts); sources are read relative to it. */
  readonly root: string;
  /** The output directory, `generated/` or a temporary one; it exists and the step owns its files in it. */
  readonly outDir: string;
  /** `npm run generate -- --stubs`: write a typed stub for each action the menus name without a handler. */
  readonly writeStubs?: boolean;
}

/**
 * One generator of `npm run generate`: a name, the sources it reads (relative to the root, as its output
 * headers name them) and what it writes. Steps are independent and deterministic: a rerun writes the
 * same bytes.
 */
export interface GeneratorStep {
  readonly name: string;
  readonly sources: readonly string[];
  run(context: StepContext): Promise<void>;
}
