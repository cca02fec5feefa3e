import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkOptionKeys } from './check-option-keys.js';
import { checkPlaceholders } from './check-placeholders.js';
import { checkReachable } from './check-reachable.js';
import { checkReferences } from './check-references.js';
import { checkTextLength } from './check-text-length.js';
import { compileTree } from './compile-tree.js';
import { emitMenusTs } from './emit-menus-ts.js';
import { loadModel } from './load-model.js';
import { MenuErrors } from './menu-errors.js';
import { repoPath } from '../lib/repo-root.js';
import type { GeneratorStep } from '../lib/step.js';
import { readSourceFiles } from './source-files.js';

/** Where the menus come from (relative to the repository root, or absolute) and where the tree goes. */
export interface GenerateMenusOptions {
  menusDir: string;
  outDir: string;
}

/** `menus/*.yaml` → `generated/menus.ts`. */
export const menusStep: GeneratorStep = {
  name: 'menus',
  sources: ['menus'],
  run: ({ root, outDir }) => generateMenus({ menusDir: path.join(root, 'menus'), outDir }),
};

/**
 * Compiles `menusDir/*.yaml` into `outDir/menus.ts`. Throws one Error listing every problem found, each as
 * `<file>:<line> node "<id>": <what is wrong>`; writes nothing then.
 *
 * @example
 * await generateMenus({ menusDir: 'menus', outDir: 'generated' });
 */
export async function generateMenus(opts: GenerateMenusOptions): Promise<void> {
  const files = await readSourceFiles(opts.menusDir);
  const errors = new MenuErrors();
  if (files.length === 0) errors.general(repoPath(opts.menusDir), 'no .yaml menu files');
  errors.throwIfAny();
  const model = loadModel(files, errors);
  errors.throwIfAny();
  if (!model) throw new Error('menus could not be read'); // loadModel reports why; unreachable
  checkReferences(model, errors);
  checkOptionKeys(model, errors);
  checkPlaceholders(model, errors);
  checkReachable(model, errors);
  errors.throwIfAny();
  const compiled = compileTree(model, errors);
  errors.throwIfAny();
  checkTextLength(compiled.tree, model, errors);
  errors.throwIfAny();
  await mkdir(opts.outDir, { recursive: true });
  await writeFile(
    path.join(opts.outDir, 'menus.ts'),
    emitMenusTs(
      compiled,
      files.map((f) => f.name),
    ),
  );
}
