import type { CompiledAction, CompiledNode, MenuTree } from '../../lib/ussd/menu-tree.js';
import { inputScreen } from '../../lib/ussd/screen-layout.js';
import { START } from './check-references.js';
import type { Location } from './locate.js';
import type { MenuModel } from './load-model.js';
import type { MenuErrors } from './menu-errors.js';
import { writtenKey } from './option-keys.js';
import {
  checkEndText,
  checkInputScreen,
  checkNotice,
  planInfoPages,
  planMenuPages,
  type MenuPages,
} from './plan-pages.js';
import { NOTICE_MAX, screenBudget } from './screen-budget.js';
import { compareCodeUnits } from '../../lib/code-unit-order.js';
import { placeholderLengths } from './saved-answers.js';
import { VALIDATORS } from './validators.js';

/** What the generated file is made of: the tree, and the names its types are built from. */
export interface CompiledMenus {
  tree: MenuTree;
  nodeIds: string[];
  languages: string[];
  notices: string[];
  placeholders: string[];
  formFields: string[];
  /** Action → the nodes it may lead to (union over every place it is used), sorted. */
  actions: Map<string, string[]>;
}

/** Plans pages, checks every screen's length in every language, and builds the tree. */
export function compileTree(model: MenuModel, errors: MenuErrors): CompiledMenus {
  const budgets = model.languages.map((lang) => screenBudget(model, lang));
  const actions = new Map<string, Set<string>>();
  const formFields = new Set<string>();
  const actionOf = (name: string, next: string | string[] | undefined): CompiledAction => {
    const targets = [...new Set(next === undefined ? [] : [next].flat())].sort();
    const all = actions.get(name) ?? new Set<string>();
    targets.forEach((t) => all.add(t));
    actions.set(name, all);
    return { name, targets };
  };
  const action = (
    name: string | undefined,
    next: string | string[] | undefined,
  ): CompiledAction | undefined => (name === undefined ? undefined : actionOf(name, next));
  /** A single `next:` (a list is only allowed after an action, which checkReferences has ensured). */
  const single = (next: string | string[] | undefined): string | undefined =>
    typeof next === 'string' ? next : undefined;

  for (const budget of budgets) {
    const { system, notices } = model;
    const sysLoc = (key: string): Location => ({ file: system.loc.file, path: [...system.loc.path, key] });
    checkEndText(budget.worst(system.value.goodbye), sysLoc('goodbye'), budget, errors);
    checkNotice(
      budget.worst(system.value.invalidChoice),
      sysLoc('invalidChoice'),
      budget,
      errors,
      NOTICE_MAX,
    );
    for (const [, n] of notices) checkNotice(budget.worst(n.value), n.loc, budget, errors, NOTICE_MAX);
  }

  const nodes: Record<string, CompiledNode> = {};
  for (const [id, located] of model.nodes) {
    const { value: node, loc } = located;
    const back = (rule: string | false | undefined): string | boolean => rule ?? id !== START;
    switch (node.type) {
      case 'menu': {
        const keys = node.options.map((o, i) =>
          writtenKey({ file: loc.file, path: [...loc.path, 'options', i, 'key'] }, o.key),
        );
        const pages: Record<string, MenuPages> = {};
        for (const b of budgets) pages[b.lang] = planMenuPages({ value: node, loc }, keys, b, errors);
        nodes[id] = {
          kind: 'menu',
          title: node.title,
          back: back(node.back),
          pages,
          options: node.options.map((o, i) => ({
            key: keys[i] ?? o.key,
            label: o.label,
            when: o.when,
            next: o.action === undefined ? single(o.next) : undefined,
            action: action(o.action, o.next),
            value: o.value,
          })),
        };
        break;
      }
      case 'info': {
        const pages: Record<string, string[]> = {};
        for (const b of budgets) pages[b.lang] = planInfoPages({ value: node, loc }, b, errors);
        nodes[id] = { kind: 'info', pages, back: back(node.back) };
        break;
      }
      case 'input': {
        for (const b of budgets) {
          const screen = inputScreen(
            { prompt: b.worst(node.prompt), skip: node.optional, back: true },
            b.labels,
          );
          checkInputScreen({ value: node, loc }, screen, b, errors);
        }
        if (node.save !== undefined) formFields.add(node.save);
        nodes[id] = {
          kind: 'input',
          prompt: node.prompt,
          validate: node.validate,
          maxLength: node.maxLength,
          pattern: node.pattern,
          patternNotice: node.patternNotice,
          optional: node.optional,
          secret: node.secret,
          save: node.save,
          next: node.action === undefined ? single(node.next) : undefined,
          action: action(node.action, node.next),
          back: back(node.back),
        };
        break;
      }
      case 'action':
        nodes[id] = { kind: 'action', action: actionOf(node.action, node.next) };
        break;
      case 'end':
        for (const b of budgets)
          checkEndText(b.worst(node.text), { file: loc.file, path: [...loc.path, 'text'] }, b, errors);
        nodes[id] = { kind: 'end', text: node.text };
        break;
      default:
        assertNever(node);
    }
  }

  return {
    tree: {
      start: START,
      defaultLanguage: model.languages[0] ?? '',
      languages: model.languageNames,
      placeholders: Object.fromEntries(placeholderLengths(model)),
      validators: VALIDATORS,
      system: model.system.value,
      notices: Object.fromEntries([...model.notices].map(([k, v]) => [k, v.value])),
      nodes,
    },
    nodeIds: [...model.nodes.keys()].sort(),
    languages: [...model.languages].sort(),
    notices: [...model.notices.keys()].sort(),
    placeholders: [...placeholderLengths(model).keys()].sort(),
    formFields: [...formFields].sort(),
    actions: new Map(
      [...actions].sort(([a], [b]) => compareCodeUnits(a, b)).map(([k, v]) => [k, [...v].sort()]),
    ),
  };
}

function assertNever(node: never): never {
  throw new Error(`unknown node type ${JSON.stringify(node)}`);
}
