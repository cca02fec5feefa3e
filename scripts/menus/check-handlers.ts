import { readFile, writeFile, access } from 'node:fs/promises';
import path from 'node:path';
import { repoPath } from '../lib/repo-root.js';
import { didYouMean } from './did-you-mean.js';
import type { MenuModel } from './load-model.js';
import type { Location } from './locate.js';
import { placeOf, type MenuErrors } from './menu-errors.js';

/** Where the action handlers are registered: `export const actionHandlers: ActionHandlers = { … };`. */
export interface HandlerRegistry {
  /** The folder of the handlers (server/ussd/actions), relative to the repository root or absolute. */
  dir: string;
  /** Write a typed, registered stub for every action the menus name that has no handler. */
  writeStubs?: boolean;
}

/** One use of an action in the menus. */
interface ActionUse {
  name: string;
  targets: string[];
  loc: Location;
}

const REGISTRY_START = /export const actionHandlers: ActionHandlers = \{/;

/** Every place the menus name an action, with the nodes it may lead to there. */
export function actionUses(model: MenuModel): ActionUse[] {
  const uses: ActionUse[] = [];
  const list = (next: string | string[] | undefined): string[] => (next === undefined ? [] : [next].flat());
  for (const [, { value: node, loc }] of model.nodes) {
    const at = (...p: (string | number)[]): Location => ({ file: loc.file, path: [...loc.path, ...p] });
    if (node.type === 'menu') {
      node.options.forEach((o, i) => {
        if (o.action !== undefined)
          uses.push({ name: o.action, targets: list(o.next), loc: at('options', i, 'action') });
      });
    } else if ((node.type === 'input' || node.type === 'action') && node.action !== undefined) {
      uses.push({ name: node.action, targets: list(node.next), loc: at('action') });
    }
  }
  return uses;
}

/** The names registered in the handlers' index, with the line each is on. */
export function registeredHandlers(source: string): Map<string, number> | undefined {
  const start = REGISTRY_START.exec(source);
  if (!start) return undefined;
  const bodyStart = start.index + start[0].length;
  const bodyEnd = source.indexOf('\n};', bodyStart);
  if (bodyEnd < 0) return undefined;
  const names = new Map<string, number>();
  const firstLine = source.slice(0, bodyStart).split('\n').length;
  source
    .slice(bodyStart, bodyEnd)
    .split('\n')
    .forEach((line, i) => {
      const match = /^\s*([a-z][A-Za-z0-9]*)\s*(?:,|:|$)/.exec(line);
      if (match?.[1] !== undefined) names.set(match[1], firstLine + i);
    });
  return names;
}

/** `checkBalance` → `check-balance`: the handler's file name. */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * Every action the menus name has a handler registered in `<dir>/index.ts`, and every registered handler
 * is named by the menus. With `writeStubs`, an action without a handler gets one first: a typed stub in
 * `<dir>/<kebab-name>.ts` that leads to its first target, registered in the index. Returns the files it
 * wrote.
 */
export async function checkHandlers(
  model: MenuModel,
  registry: HandlerRegistry,
  errors: MenuErrors,
): Promise<string[]> {
  const indexFile = path.join(registry.dir, 'index.ts');
  const indexName = repoPath(indexFile);
  let source: string;
  try {
    source = await readFile(indexFile, 'utf8');
  } catch {
    errors.general(indexName, 'cannot read the action handlers (expected export const actionHandlers)');
    return [];
  }
  const registered = registeredHandlers(source);
  if (registered === undefined) {
    errors.general(
      indexName,
      'no `export const actionHandlers: ActionHandlers = { … };` to check the actions against',
    );
    return [];
  }
  const uses = actionUses(model);
  const missing = new Map<string, ActionUse[]>();
  for (const use of uses)
    if (!registered.has(use.name)) missing.set(use.name, [...(missing.get(use.name) ?? []), use]);

  const written: string[] = [];
  if (registry.writeStubs && missing.size > 0) {
    const sets = (action: string): readonly string[] => model.actions.get(action)?.value.sets ?? [];
    for (const [name, usesOf] of missing)
      written.push(...(await writeStub(registry.dir, name, usesOf, sets)));
    written.push(await register(indexFile, [...missing.keys()]));
    missing.clear();
  }
  for (const [name, usesOf] of missing) {
    for (const use of usesOf) {
      errors.atField(
        use.loc,
        `action "${name}" has no handler in ${indexName}${didYouMean(name, registered.keys())}; ` +
          '`npm run generate -- --stubs` writes a typed one for you to fill in',
      );
    }
  }
  const named = new Set(uses.map((u) => u.name));
  for (const [name, line] of registered) {
    if (!named.has(name) && model.incomplete === undefined && model.broken.size === 0) {
      errors.atLine(
        indexName,
        line,
        `handler "${name}" is registered but no menu names action "${name}"${didYouMean(name, named)}; remove it or name it in menus/`,
      );
    }
  }
  return written.map((f) => repoPath(f));
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

async function writeStub(
  dir: string,
  name: string,
  uses: readonly ActionUse[],
  sets_: (action: string) => readonly string[],
): Promise<string[]> {
  const file = path.join(dir, `${kebab(name)}.ts`);
  if (await exists(file)) return []; // a handler written but not registered: registering it is enough
  const targets = [...new Set(uses.flatMap((u) => u.targets))].sort();
  const places = uses.map((u) => placeOf(u.loc)).join(', ');
  const first = targets[0] ?? '';
  const sets = sets_(name);
  const params = sets.length === 0 ? '' : `, params: { ${sets.map((p) => `${p}: ''`).join(', ')} }`;
  const text = `import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';

/**
 * ${name}: named in ${places}.
 * It may lead to ${targets.map((t) => `'${t}'`).join(', ')} (its \`next:\` list). Write what it does (docs/menus.md,
 * "Actions"): \`ctx.input\` is the answer typed (or the option's \`value:\`), \`ctx.form('name')\` an answer saved
 * earlier, \`ctx.accounts\` the accounts. Return \`{ next, params }\` to go on (params fill what \`actions:\`
 * says it sets), with \`notice\` to show one there, or \`{ retry: 'someNotice' }\` to stay on the screen.
 */
export const ${name}: ActionHandler<ActionTargets['${name}']> = (_ctx) => {
  return Promise.resolve({ next: '${first}'${params} });
};
`;
  await writeFile(file, await formatted(file, text));
  return [file];
}

/** Adds `import { name } from './name.js'` and `name,` to the index, each in code-unit order. */
async function register(indexFile: string, names: readonly string[]): Promise<string> {
  let source = await readFile(indexFile, 'utf8');
  for (const name of [...names].sort()) {
    const importLine = `import { ${name} } from './${kebab(name)}.js';\n`;
    const imports = [...source.matchAll(/^import \{ (\w+) \} from '\.\/[\w-]+\.js';\n/gm)];
    const after = imports.filter((m) => (m[1] ?? '') < name).at(-1);
    const before = imports.find((m) => (m[1] ?? '') > name);
    const at = after ? after.index + after[0].length : before ? before.index : source.indexOf('\n\n') + 1;
    source = source.slice(0, at) + importLine + source.slice(at);
    const registry = REGISTRY_START.exec(source);
    if (!registry) throw new Error(`${repoPath(indexFile)}: actionHandlers not found`);
    const bodyStart = registry.index + registry[0].length;
    const bodyEnd = source.indexOf('\n};', bodyStart);
    const entries = source
      .slice(bodyStart, bodyEnd)
      .split('\n')
      .filter((l) => l.trim() !== '');
    entries.push(`  ${name},`);
    entries.sort((a, b) => (a.trim() < b.trim() ? -1 : a.trim() > b.trim() ? 1 : 0));
    source = `${source.slice(0, bodyStart)}\n${entries.join('\n')}${source.slice(bodyEnd)}`;
  }
  await writeFile(indexFile, await formatted(indexFile, source));
  return indexFile;
}

/** The text as Prettier writes it with the repository's settings (so `npm run lint` passes). */
async function formatted(file: string, text: string): Promise<string> {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...options, filepath: file });
}
