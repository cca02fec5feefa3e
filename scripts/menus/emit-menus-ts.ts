import { stableJson, tsHeader } from '../lib/header.js';
import type { CompiledMenus } from './compile-tree.js';
import { VALIDATOR_NAMES, VALIDATORS } from './validators.js';

/** The name of this generator, as written in the header of what it generates. */
export const GENERATOR = 'scripts/menus/generate-menus.ts';

const union = (names: readonly string[]): string =>
  names.length === 0 ? 'never' : names.map((n) => `'${n}'`).join(' | ');

/** After `=`: a long union one member per line, so a change to the menus shows as a one-line diff. */
const unionBlock = (names: readonly string[]): string =>
  names.length <= 1 ? ` ${union(names)}` : `\n${names.map((n) => `  | '${n}'`).join('\n')}`;

/** Where generated/menus.ts finds the tree's types (lib/ussd/menu-tree.ts), relative to generated/. */
const TREE_MODULE = '../lib/ussd/menu-tree.js';

/** The types of lib/ussd/menu-tree.ts, re-exported so the server imports the whole menus from one module. */
const TREE_TYPE_NAMES = [
  'Audience',
  'BackRule',
  'CompiledAction',
  'CompiledActionNode',
  'CompiledEnd',
  'CompiledInfo',
  'CompiledInput',
  'CompiledMenu',
  'CompiledNode',
  'CompiledOption',
  'MenuTree',
  'SystemTexts',
  'Translated',
] as const;

/** The text of `menus.ts`: header, tree types, the unions handlers are typed against, and the tree. */
export function emitMenusTs(compiled: CompiledMenus, sources: readonly string[]): string {
  const actionTargets = [...compiled.actions]
    .map(([name, targets]) => `  readonly ${name}: ${union(targets)};`)
    .join('\n');
  const validatorNotices = VALIDATOR_NAMES.map((v) => `  readonly ${v}: ${union(VALIDATORS[v])};`).join('\n');
  return [
    tsHeader({ generator: GENERATOR, sources: [...sources] }),
    `import type { MenuTree } from '${TREE_MODULE}';`,
    '',
    `export type {\n${TREE_TYPE_NAMES.map((n) => `  ${n},`).join('\n')}\n} from '${TREE_MODULE}';`,
    '',
    '/** A language the menus are written in. */',
    `export type Language =${unionBlock(compiled.languages)};`,
    '',
    '/** Id of a menu node (the `state` of a session). */',
    `export type NodeId =${unionBlock(compiled.nodeIds)};`,
    '',
    '/** An action named in the menus; the server must have exactly one handler for each. */',
    `export type ActionName =${unionBlock([...compiled.actions.keys()])};`,
    '',
    '/** The nodes each action may lead to (its handler may return no other). */',
    `export interface ActionTargets {${actionTargets ? `\n${actionTargets}\n` : ''}}`,
    '',
    '/** A notice a handler may show in front of a screen. */',
    `export type MessageKey =${unionBlock(compiled.notices)};`,
    '',
    '/** A `{placeholder}` a handler may fill. */',
    `export type Placeholder =${unionBlock(compiled.placeholders)};`,
    '',
    '/** A value an input saves for later steps (`save:`). */',
    `export type FormField =${unionBlock(compiled.formFields)};`,
    '',
    '/** A built-in input check (`validate:`). */',
    `export type ValidatorName =${unionBlock(VALIDATOR_NAMES)};`,
    '',
    '/** The notices each built-in check can show. */',
    `export interface ValidatorNotices {\n${validatorNotices}\n}`,
    '',
    '/** The compiled menus. */',
    `export const menuTree: MenuTree = ${stableJson(compiled.tree).trimEnd()};`,
    '',
  ].join('\n');
}
