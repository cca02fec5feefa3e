import { START } from './check-references.js';
import { didYouMean } from './did-you-mean.js';
import type { Location } from './locate.js';
import type { MenuModel } from './load-model.js';
import type { MenuErrors } from './menu-errors.js';
import { placeholdersIn } from './placeholders.js';
import { savedAnswers } from './saved-answers.js';
import { allTexts } from './texts.js';

/** One way from a node to the next, as the engine takes it, and what it gives the next screen. */
interface Step {
  from: string;
  to: string;
  /** What the user types: an option's key, an answer, `00` (skip), `0` (a fixed back). */
  typed: string;
  /** The action run on this step, if any. */
  action: string | undefined;
  /** Placeholders the action run on the way fills on the screen it leads to. */
  sets: ReadonlySet<string>;
  /** The answer this step saves for the rest of the session (a non-secret input answered). */
  saves: string | undefined;
  /** An optional input skipped: the answer it saves is forgotten. */
  clears: string | undefined;
}

/**
 * Every `{name}` a screen shows is filled on every way to it: by an answer saved (`save: name`) earlier in
 * the session, i.e. since the top menu was last shown (it forgets them), or by the action run on the step
 * into the screen, which declares what it sets under `actions: <name>: sets:`. Refuses a screen where
 * some way leaves a gap, naming the screen, the placeholder and that way.
 */
export function checkPlaceholderWays(model: MenuModel, errors: MenuErrors): void {
  if (!model.nodes.has(START)) return; // reported by checkReferences
  const steps = stepsOf(model);
  const used = new Map<string, { name: string; loc: Location }[]>();
  for (const { text, loc, screen } of allTexts(model)) {
    if (screen === undefined) continue;
    const list = used.get(screen) ?? [];
    for (const lang of model.languages) {
      for (const name of placeholdersIn(text[lang] ?? '')) {
        if (!list.some((u) => u.name === name))
          list.push({ name, loc: { file: loc.file, path: [...loc.path, lang] } });
      }
    }
    used.set(screen, list);
  }
  const anyWay = waysFrom(START, steps);
  // A name neither declared nor saved is reported by checkPlaceholders; a secret one too.
  const saved = savedAnswers(model);
  const known = (name: string): boolean =>
    model.placeholders.has(name) || (saved.has(name) && saved.get(name)?.secret !== true);
  for (const [screen, names] of used) {
    for (const { name, loc } of names) {
      if (!known(name)) continue;
      const gap = wayWithout(name, screen, steps, anyWay);
      if (gap === undefined) continue;
      const last = gap.at(-1)?.action;
      const byAction =
        last === undefined
          ? `or run an action on the step here that sets it (actions: <action>: sets: [${name}])`
          : `or, if action ${last} sets it, say so (actions: ${last}: sets: [${name}])`;
      errors.atField(
        loc,
        `{${name}} may be empty: nothing fills it on the way ${describe(gap)}; ` +
          `save it on every way here (an input with save: ${name}), ${byAction}`,
      );
    }
  }
}

/** A way from the dial to `screen` on which `name` is neither saved nor set, or undefined. */
function wayWithout(
  name: string,
  screen: string,
  steps: ReadonlyMap<string, readonly Step[]>,
  anyWay: ReadonlyMap<string, Step | undefined>,
): Step[] | undefined {
  // Where the user can be without `name` saved: the top menu (it forgets every answer), and wherever an
  // optional input that saves it was skipped; then on, along steps that do not save it.
  const start: { node: string; way: Step[] }[] = [{ node: START, way: [] }];
  for (const list of steps.values()) {
    for (const step of list) {
      if (step.clears !== name || !anyWay.has(step.from)) continue;
      const way = [...pathTo(step.from, anyWay), step];
      if (step.to === screen && !step.sets.has(name)) return way;
      start.push({ node: step.to, way });
    }
  }
  const ways = new Map<string, Step[]>();
  const queue: string[] = [];
  for (const { node, way } of start) {
    if (ways.has(node)) continue;
    ways.set(node, way);
    queue.push(node);
  }
  if (screen === START) return [];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    const way = ways.get(node) ?? [];
    for (const step of steps.get(node) ?? []) {
      if (step.saves === name) continue;
      if (step.to === screen && !step.sets.has(name)) return [...way, step];
      if (step.to === START || ways.has(step.to)) continue;
      ways.set(step.to, [...way, step]);
      queue.push(step.to);
    }
  }
  return undefined;
}

/** The step that first reaches each node from `from` (breadth first). */
function waysFrom(from: string, steps: ReadonlyMap<string, readonly Step[]>): Map<string, Step | undefined> {
  const first = new Map<string, Step | undefined>([[from, undefined]]);
  const queue = [from];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    for (const step of steps.get(node) ?? []) {
      if (first.has(step.to)) continue;
      first.set(step.to, step);
      queue.push(step.to);
    }
  }
  return first;
}

function pathTo(node: string, first: ReadonlyMap<string, Step | undefined>): Step[] {
  const out: Step[] = [];
  for (let step = first.get(node); step !== undefined; step = first.get(step.from)) out.unshift(step);
  return out;
}

/** `preMenu (4) → weatherTown (00) → weatherReport`, or `the dial` for the top menu itself. */
function describe(way: readonly Step[]): string {
  if (way.length === 0) return `the dial → ${START}`;
  return [...way.map((s) => `${s.from} (${s.typed})`), way.at(-1)?.to ?? ''].join(' → ');
}

/** Every step out of every node, with what it sets, saves and forgets. */
function stepsOf(model: MenuModel): Map<string, Step[]> {
  const sets = (action: string | undefined): ReadonlySet<string> =>
    new Set(action === undefined ? [] : (model.actions.get(action)?.value.sets ?? []));
  const list = (next: string | string[] | undefined): string[] => (next === undefined ? [] : [next].flat());
  const out = new Map<string, Step[]>();
  for (const [from, { value: node }] of model.nodes) {
    const steps: Step[] = [];
    const add = (to: string, typed: string, action?: string, saves?: string, clears?: string): void => {
      const how = action === undefined || node.type === 'action' ? typed : `${typed}, action ${action}`;
      if (model.nodes.has(to))
        steps.push({ from, to, typed: how, action, sets: sets(action), saves, clears });
    };
    switch (node.type) {
      case 'menu':
        for (const option of node.options) {
          for (const to of list(option.next)) add(to, String(option.key), option.action);
        }
        break;
      case 'input': {
        const save = node.secret ? undefined : node.save;
        for (const to of list(node.next)) {
          add(to, 'an answer', node.action, save);
          if (node.optional) add(to, '00', node.action, undefined, save);
        }
        break;
      }
      case 'action':
        for (const to of list(node.next)) add(to, `action ${node.action}`, node.action);
        break;
      case 'info':
      case 'end':
        break;
    }
    if (
      (node.type === 'menu' || node.type === 'info' || node.type === 'input') &&
      typeof node.back === 'string'
    )
      add(node.back, '0');
    out.set(from, steps);
  }
  return out;
}

/** `actions:` declares actions the menus name, and each sets placeholders a screen can show. */
export function checkActionDeclarations(
  model: MenuModel,
  errors: MenuErrors,
  named: ReadonlySet<string>,
): void {
  const saved = savedAnswers(model);
  const known = [...model.placeholders.keys(), ...[...saved].filter(([, a]) => !a.secret).map(([n]) => n)];
  for (const [action, { value, loc }] of model.actions) {
    if (!named.has(action))
      errors.at(
        loc,
        `no node names action "${action}"${didYouMean(action, named)}; remove it or name it in a node`,
      );
    value.sets.forEach((name, i) => {
      if (known.includes(name)) return;
      errors.at(
        { file: loc.file, path: [...loc.path, 'sets', i] },
        `sets {${name}}, which is neither declared under placeholders: nor saved by an input${didYouMean(name, known)}`,
      );
    });
  }
}
