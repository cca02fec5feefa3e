import { USSD_TEXT_MAX } from '../../contracts/ussd.js';
import type { MenuTree } from '../../lib/ussd/menu-tree.js';
import { NAV_KEYS } from '../../lib/ussd/screen-layout.js';
import type { MenuModel } from './load-model.js';
import type { MenuErrors } from './menu-errors.js';
import { VALIDATOR_SHORTEST } from './validators.js';

/** Where the user is: a screen, a page of it, and whether some action may have logged them in. */
interface State {
  node: string;
  page: number;
  authenticated: boolean;
}

/** The best known way to a state: the accumulated text's length and the inputs typed. */
interface Way {
  length: number;
  inputs: readonly string[];
}

const keyOf = (s: State): string => `${s.node}|${s.page}|${s.authenticated ? 1 : 0}`;

/** The accumulated `text` after typing `input` on top of `way` (inputs are joined with `*`). */
const extend = (way: Way, input: string): Way => ({
  length: way.inputs.length === 0 ? input.length : way.length + 1 + input.length,
  inputs: [...way.inputs, input],
});

/**
 * The shortest accumulated `text` from the dial (text empty, at the start node, logged out) to every node,
 * in one language: a Dijkstra search over (screen, page, logged in). Menu options cost their key, `98` turns
 * a page, a fixed `back:` costs `0`, an input costs its shortest valid value (`00` when it is optional).
 * An action may lead to any of its declared targets, logged in or not (the compiler cannot know which
 * action logs a user in), so the result is a lower bound: what it reports can never be finished.
 */
export function shortestTexts(tree: MenuTree, lang: string): Map<string, Way> {
  const best = new Map<string, Way>();
  const reached = new Map<string, Way>();
  const queue: { state: State; way: Way }[] = [];
  const reach = (node: string, way: Way): void => {
    const known = reached.get(node);
    if (known === undefined || way.length < known.length) reached.set(node, way);
  };
  const push = (state: State, way: Way): void => {
    const known = best.get(keyOf(state));
    if (known !== undefined && known.length <= way.length) return;
    best.set(keyOf(state), way);
    queue.push({ state, way });
  };
  // Goes to `target` the way the engine's enter() does: action nodes run on, end nodes end.
  const enter = (target: string, authenticated: boolean, way: Way, depth = 0): void => {
    const node = tree.nodes[target];
    if (node === undefined || depth > 8) return;
    reach(target, way);
    if (node.kind === 'action') {
      for (const next of node.action.targets) {
        for (const auth of [false, true]) enter(next, auth, way, depth + 1);
      }
    } else if (node.kind !== 'end') push({ node: target, page: 0, authenticated }, way);
  };
  const afterAction = (targets: readonly string[], way: Way): void => {
    for (const next of targets) for (const auth of [false, true]) enter(next, auth, way);
  };

  enter(tree.start, false, { length: 0, inputs: [] });
  while (queue.length > 0) {
    queue.sort((a, b) => a.way.length - b.way.length);
    const { state, way } = queue.shift()!;
    if ((best.get(keyOf(state))?.length ?? Infinity) < way.length) continue;
    const node = tree.nodes[state.node];
    if (node === undefined) continue;
    const turnPage = (pageCount: number): void => {
      if (state.page < pageCount - 1) push({ ...state, page: state.page + 1 }, extend(way, NAV_KEYS.more));
    };
    const back = (rule: boolean | string): void => {
      if (typeof rule === 'string' && state.page === 0)
        enter(rule, state.authenticated, extend(way, NAV_KEYS.back));
    };
    switch (node.kind) {
      case 'menu': {
        const pages = node.pages[lang]?.[state.authenticated ? 'authenticated' : 'anonymous'] ?? [];
        turnPage(pages.length);
        back(node.back);
        for (const key of pages[state.page] ?? []) {
          const option = node.options.find((o) => o.key === key);
          if (option?.action) afterAction(option.action.targets, extend(way, key));
          else if (option?.next !== undefined) enter(option.next, state.authenticated, extend(way, key));
        }
        break;
      }
      case 'info':
        turnPage(node.pages[lang]?.length ?? 1);
        back(node.back);
        break;
      case 'input': {
        back(node.back);
        const shortest =
          node.validate === undefined
            ? 'x'
            : (VALIDATOR_SHORTEST[node.validate as keyof typeof VALIDATOR_SHORTEST] ?? 'x');
        const value = node.optional && NAV_KEYS.skip.length < shortest.length ? NAV_KEYS.skip : shortest;
        if (node.action) afterAction(node.action.targets, extend(way, value));
        else if (node.next !== undefined) enter(node.next, state.authenticated, extend(way, value));
        break;
      }
      case 'action':
      case 'end':
        break;
    }
  }
  return reached;
}

/**
 * Every screen must be reachable with an accumulated `text` of at most 182 characters (spec A1): the limit
 * applies to the whole text of a session, so a flow whose shortest text is longer can never be finished.
 * Reports each node whose shortest text from the dial is longer, in the language where it is longest.
 */
export function checkTextLength(tree: MenuTree, model: MenuModel, errors: MenuErrors, note?: string): void {
  const worst = new Map<string, { lang: string; way: Way }>();
  for (const lang of model.languages) {
    for (const [node, way] of shortestTexts(tree, lang)) {
      const known = worst.get(node);
      if (known === undefined || way.length > known.way.length) worst.set(node, { lang, way });
    }
  }
  for (const [node, { lang, way }] of worst) {
    const located = model.nodes.get(node);
    if (located === undefined || way.length <= USSD_TEXT_MAX) continue;
    errors.at(
      located.loc,
      `the shortest text that reaches it from the dial is ${way.length} characters in ${lang} ` +
        `(limit ${USSD_TEXT_MAX} for the accumulated text), e.g. "${way.inputs.join('*')}"; ` +
        'shorten the way to it',
      note,
    );
  }
  // A free-text answer of maxLength characters must still fit: the text that reaches the input, `*`, the answer.
  for (const [id, { lang, way }] of worst) {
    const node = tree.nodes[id];
    const located = model.nodes.get(id);
    if (node?.kind !== 'input' || node.maxLength === undefined || located === undefined) continue;
    if (way.length > USSD_TEXT_MAX) continue; // reported above
    const room = USSD_TEXT_MAX - way.length - (way.inputs.length === 0 ? 0 : 1);
    if (node.maxLength <= room) continue;
    errors.at(
      { file: located.loc.file, path: [...located.loc.path, 'maxLength'] },
      `an answer of ${node.maxLength} characters cannot be sent: the shortest text that reaches this input ` +
        `is already ${way.length} characters in ${lang} (e.g. "${way.inputs.join('*')}"), so at most ${room} ` +
        `fit in the accumulated text's ${USSD_TEXT_MAX}; set maxLength to ${room} or less`,
      note,
    );
  }
}
