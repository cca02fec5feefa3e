import type { Location } from './locate.js';
import type { MenuModel } from './load-model.js';
import type { MenuErrors } from './menu-errors.js';
import { didYouMean } from './did-you-mean.js';
import { TEXT_MAX_LENGTH } from './file-schema.js';
import { VALIDATORS } from './validators.js';

/** A place where a node names another node, as the reachability check and the compiler see it. */
export interface Edge {
  from: string;
  to: string;
  loc: Location;
}

/** The start node of every menu tree (spec A3 names it). */
export const START = 'preMenu';

/** Every node reference in the model, with the place it is written. */
export function edgesOf(model: MenuModel): Edge[] {
  const edges: Edge[] = [];
  const targets = (from: string, next: string | string[] | undefined, loc: Location): void => {
    if (next === undefined) return;
    if (typeof next === 'string') edges.push({ from, to: next, loc });
    else next.forEach((to, i) => edges.push({ from, to, loc: { file: loc.file, path: [...loc.path, i] } }));
  };
  for (const [id, { value: node, loc }] of model.nodes) {
    const at = (...path: (string | number)[]): Location => ({ file: loc.file, path: [...loc.path, ...path] });
    switch (node.type) {
      case 'menu':
        node.options.forEach((o, i) => targets(id, o.next, at('options', i, 'next')));
        break;
      case 'input':
      case 'action':
        targets(id, node.next, at('next'));
        break;
      case 'info':
      case 'end':
        break;
    }
    if (
      (node.type === 'menu' || node.type === 'info' || node.type === 'input') &&
      typeof node.back === 'string'
    ) {
      edges.push({ from: id, to: node.back, loc: at('back') });
    }
  }
  return edges;
}

/**
 * References that must resolve: every `next`/`back` names a node; `next` is one node without an action
 * and a list only after one; an action says where it can lead; the start node is a menu; notices that
 * used checks show exist; `secret` inputs are saved.
 */
export function checkReferences(model: MenuModel, errors: MenuErrors): void {
  for (const edge of edgesOf(model)) {
    const isBack = edge.loc.path.at(-1) === 'back';
    const target = model.nodes.get(edge.to);
    if (!target) {
      // A node that is declared but could not be read exists: its own problems are reported.
      if (!model.broken.has(edge.to)) {
        const ids = [...model.nodes.keys(), ...model.broken.keys()];
        errors.at(
          edge.loc,
          `${isBack ? 'back' : 'next'} "${edge.to}" does not exist${didYouMean(edge.to, ids)}`,
        );
      }
    } else if (isBack && (target.value.type === 'action' || target.value.type === 'end')) {
      errors.at(
        edge.loc,
        `back "${edge.to}" must be a screen (menu, info or input), not ${target.value.type}`,
      );
    }
  }
  // A node that could not be read: its written next/back are still checked, so one run shows them too.
  const ids = [...model.nodes.keys(), ...model.broken.keys()];
  for (const [, { value, loc }] of model.broken) {
    for (const { to, path } of writtenReferences(value)) {
      if (model.nodes.has(to) || model.broken.has(to)) continue;
      const what = path.at(-1) === 'back' ? 'back' : 'next';
      errors.at(
        { file: loc.file, path: [...loc.path, ...path] },
        `${what} "${to}" does not exist${didYouMean(to, ids)}`,
      );
    }
  }
  const start = model.nodes.get(START);
  if (!start && model.broken.has(START)) {
    // Its problems are reported where it is written.
  } else if (!start) {
    const file = [...model.nodes.values()][0]?.loc.file ?? model.system.loc.file;
    errors.at({ file, path: ['nodes'] }, `node "${START}" is missing: the top menu must have this id`);
  } else if (start.value.type !== 'menu') errors.at(start.loc, `the top menu ${START} must have type: menu`);

  for (const [, { value: node, loc }] of model.nodes) {
    const at = (...path: (string | number)[]): Location => ({ file: loc.file, path: [...loc.path, ...path] });
    if (node.type === 'menu') {
      node.options.forEach((o, i) => checkStep(o.action, o.next, at('options', i), errors, 'an option'));
      node.options.forEach((o, i) => {
        if (o.value !== undefined && o.action === undefined)
          errors.at(at('options', i, 'value'), 'value is given to an action; add action:');
      });
    }
    if (node.type === 'input') {
      if (node.action === undefined && node.save === undefined) {
        errors.at(at('prompt'), 'an input needs save: (keep the value) or action: (use it), or both');
      }
      checkStep(node.action, node.next, loc, errors, 'an input');
      if (node.secret && node.save === undefined)
        errors.at(at('secret'), 'a secret input must say where to save: it');
      if (node.validate === 'text' && node.maxLength === undefined)
        errors.at(
          at('validate'),
          `validate: text needs maxLength: the longest answer, 1 to ${TEXT_MAX_LENGTH} characters`,
        );
      if (node.validate !== 'text' && node.maxLength !== undefined)
        errors.at(
          at('maxLength'),
          'maxLength is for validate: text (the other checks have their own limits)',
        );
      if (node.validate !== undefined) {
        for (const notice of VALIDATORS[node.validate]) {
          if (!model.notices.has(notice) && !model.brokenNotices.has(notice)) {
            errors.at(
              at('validate'),
              `check "${node.validate}" shows notice "${notice}", which is not declared`,
            );
          }
        }
      }
    }
  }
}

function checkStep(
  action: string | undefined,
  next: string | string[] | undefined,
  loc: Location,
  errors: MenuErrors,
  what: string,
): void {
  const at = (field: string): Location => ({ file: loc.file, path: [...loc.path, field] });
  if (action === undefined && next === undefined) errors.at(loc, `${what} needs next: or action:`);
  else if (action === undefined && Array.isArray(next)) {
    errors.at(
      at('next'),
      'a list of next nodes is only for an action (the action picks one); give one node id',
    );
  } else if (action !== undefined && next === undefined) {
    errors.at(at('action'), `action "${action}" needs next: the list of nodes it can lead to`);
  }
}

/** The node ids written in `next:`, `back:` and options' `next:` of a node as written (valid or not). */
export function writtenReferences(raw: unknown): { to: string; path: (string | number)[] }[] {
  const out: { to: string; path: (string | number)[] }[] = [];
  const take = (value: unknown, path: (string | number)[]): void => {
    if (typeof value === 'string') out.push({ to: value, path });
    else if (Array.isArray(value)) value.forEach((v, i) => take(v, [...path, i]));
  };
  if (raw && typeof raw === 'object') {
    const node = raw as { next?: unknown; back?: unknown; options?: unknown };
    if (Array.isArray(node.options)) {
      (node.options as unknown[]).forEach((o, i) => {
        if (o && typeof o === 'object') take((o as { next?: unknown }).next, ['options', i, 'next']);
      });
    }
    take(node.next, ['next']);
    take(node.back, ['back']);
  }
  return out;
}
