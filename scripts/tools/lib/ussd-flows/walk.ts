import type { CompiledNode, MenuTree } from '../../../../generated/menus.js';

/** What the walker types at an input, by the input's check: a name, an e-mail (or 00), a PIN, an ID. */
export interface WalkValues {
  fullName: string;
  pin: string;
  customerId?: string;
}

/** Where the walk wants to get: a node to stop at, or an input to type last. */
export type WalkGoal =
  /** Type the PIN at the input that runs this action (verifyPin: log in; createAccount: confirm a new PIN). */
  | { kind: 'input-action'; action: string }
  /** Choose the option that runs this action with this value (setLanguage sw). */
  | { kind: 'option'; action: string; value: string };

interface Edge {
  input: string;
  to: readonly string[];
}

/** What to type at an input node on the way (undefined: the walk cannot pass it). */
function valueFor(node: Extract<CompiledNode, { kind: 'input' }>, values: WalkValues): string | undefined {
  switch (node.validate) {
    case 'fullName':
      return values.fullName;
    case 'email':
      return node.optional ? '00' : 'simulator@example.org';
    case 'pin':
    case 'newPin':
      return values.pin;
    case 'customerId':
      return values.customerId;
    case 'text':
    case undefined:
      return node.optional ? '00' : 'Hello';
    default:
      return node.optional ? '00' : undefined;
  }
}

function edgesOf(
  tree: MenuTree,
  id: string,
  authenticated: boolean,
  values: WalkValues,
  avoidActions: ReadonlySet<string>,
): Edge[] {
  const node = tree.nodes[id];
  if (node === undefined) return [];
  switch (node.kind) {
    case 'menu':
      return node.options
        .filter((o) => o.when === undefined || o.when === (authenticated ? 'authenticated' : 'anonymous'))
        .filter((o) => !o.action || !avoidActions.has(o.action.name))
        .map((o) => ({
          input: o.key,
          to: o.action ? o.action.targets : o.next === undefined ? [] : [o.next],
        }));
    case 'input': {
      const value = valueFor(node, values);
      if (value === undefined) return [];
      return [
        { input: value, to: node.action ? node.action.targets : node.next === undefined ? [] : [node.next] },
      ];
    }
    case 'action':
      return [{ input: '', to: node.action.targets }];
    case 'info':
    case 'end':
      return [];
  }
}

/** What to type at screen `id` to finish the goal there, or undefined when it is not finished there. */
export function finishAt(tree: MenuTree, id: string, goal: WalkGoal, values: WalkValues): string | undefined {
  const node = tree.nodes[id];
  if (goal.kind === 'input-action')
    return node?.kind === 'input' && node.action?.name === goal.action ? values.pin : undefined;
  if (node?.kind !== 'menu') return undefined;
  return node.options.find((o) => o.action?.name === goal.action && o.value === goal.value)?.key;
}

/**
 * The next input on the shortest way from screen `from` to the goal, through the compiled menus (the
 * walker asks the gateway where it is after each input, so an action's choice of target is followed as
 * it happens). Undefined when the goal cannot be reached from here.
 */
export function nextInput(
  tree: MenuTree,
  from: string,
  authenticated: boolean,
  goal: WalkGoal,
  values: WalkValues,
  avoidActions: ReadonlySet<string> = new Set(),
): string | undefined {
  const first = new Map<string, string | undefined>([[from, undefined]]);
  const queue = [from];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    const done = finishAt(tree, id, goal, values);
    if (done !== undefined) return first.get(id) ?? done;
    for (const edge of edgesOf(tree, id, authenticated, values, avoidActions)) {
      for (const to of edge.to) {
        if (first.has(to)) continue;
        first.set(to, first.get(id) ?? edge.input);
        queue.push(to);
      }
    }
  }
  return undefined;
}
