import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { actionUses, checkHandlers, type HandlerRegistry } from './check-handlers.js';
import { checkPatterns } from './check-patterns.js';
import { checkActionDeclarations, checkPlaceholderWays } from './check-placeholder-ways.js';
import { checkOptionKeys } from './check-option-keys.js';
import { checkPlaceholders } from './check-placeholders.js';
import { checkReachable } from './check-reachable.js';
import { checkReferences } from './check-references.js';
import { checkTextLength } from './check-text-length.js';
import { compileTree, type CompiledMenus } from './compile-tree.js';
import { emitMenuMapMarkdown, emitMenuMapSvg } from './emit-menu-map.js';
import { emitMenusTs, GENERATOR } from './emit-menus-ts.js';
import { loadModel } from './load-model.js';
import { MenuErrors } from './menu-errors.js';
import { repoPath } from '../lib/repo-root.js';
import type { GeneratorStep } from '../lib/step.js';
import type { MenuTree } from '../../lib/ussd/menu-tree.js';
import { readSourceFiles } from './source-files.js';

/** Where the menus come from (relative to the repository root, or absolute) and where the tree goes. */
export interface GenerateMenusOptions {
  menusDir: string;
  outDir: string;
  /** Check every action against the handlers registered there (the real menus; fixtures have none). */
  handlers?: HandlerRegistry;
  /** Also write the menu map (menu-map.svg, menu-map.md) beside menus.ts. */
  map?: boolean;
}

/** What a run wrote outside `outDir` (the handler stubs of `handlers.writeStubs`), and the tree it compiled. */
export interface GenerateMenusResult {
  stubs: string[];
  tree: MenuTree;
}

/** `menus/*.yaml` → `generated/menus.ts` and the menu map, with the handlers in server/ussd/actions checked. */
export const menusStep: GeneratorStep = {
  name: 'menus',
  sources: ['menus'],
  run: async ({ root, outDir, writeStubs }) => {
    const { stubs } = await generateMenus({
      menusDir: path.join(root, 'menus'),
      outDir,
      handlers: { dir: path.join(root, 'server/ussd/actions'), writeStubs: writeStubs === true },
      map: true,
    });
    for (const stub of stubs)
      console.log(
        `wrote ${stub}${stub.endsWith('index.ts') ? ' (registered the new handlers)' : ': fill in its body'}`,
      );
  },
};

/**
 * Checks `menusDir/*.yaml` and compiles it into `outDir/menus.ts`. Every problem is found in one run:
 * nodes are read one by one, and each check runs on what could be read; a problem that follows from
 * another says so. Throws one Error listing them all, each as `<file>:<line> node "<id>": <what is wrong>`,
 * and writes nothing then. Only a file YAML cannot read, or missing languages or system texts, stop the
 * checks early.
 *
 * @example
 * await generateMenus({ menusDir: 'menus', outDir: 'generated' });
 */
export async function generateMenus(opts: GenerateMenusOptions): Promise<GenerateMenusResult> {
  const files = await readSourceFiles(opts.menusDir);
  const errors = new MenuErrors();
  if (files.length === 0) errors.general(repoPath(opts.menusDir), 'no .yaml menu files');
  errors.throwIfAny();
  const model = loadModel(files, errors);
  if (!model) {
    errors.throwIfAny();
    throw new Error('menus could not be read'); // loadModel reports why; unreachable
  }
  checkReferences(model, errors);
  const referenceProblems = errors.causes;
  checkOptionKeys(model, errors);
  checkPlaceholders(model, errors);
  checkPatterns(model, errors);
  checkActionDeclarations(model, errors, new Set(actionUses(model).map((u) => u.name)));
  checkPlaceholderWays(model, errors);
  const stubs = opts.handlers ? await checkHandlers(model, opts.handlers, errors) : [];
  checkReachable(model, errors);
  const compiled: CompiledMenus = compileTree(model, errors);
  // The shortest ways are measured on what could be read: with a wrong reference or node a way may be
  // missing, so a text found too long then may only be a consequence.
  const partial = referenceProblems > 0 || model.broken.size > 0 || model.incomplete !== undefined;
  checkTextLength(
    compiled.tree,
    model,
    errors,
    partial ? 'maybe a consequence of the problems above' : undefined,
  );
  errors.throwIfAny();
  const sources = files.map((f) => f.name);
  await mkdir(opts.outDir, { recursive: true });
  await writeFile(path.join(opts.outDir, 'menus.ts'), emitMenusTs(compiled, sources));
  if (opts.map) {
    await writeFile(
      path.join(opts.outDir, 'menu-map.svg'),
      emitMenuMapSvg(compiled.tree, sources, GENERATOR),
    );
    await writeFile(
      path.join(opts.outDir, 'menu-map.md'),
      emitMenuMapMarkdown(compiled.tree, sources, GENERATOR),
    );
  }
  return { stubs, tree: compiled.tree };
}
