import type { CompiledAction } from '../../../generated/menus.js';
import { actionContext } from './action-context.js';
import { fillTemplate } from './templates.js';
import { showScreen } from './navigate.js';
import { nodeOf, type Turn } from './turn.js';

type Params = Readonly<Record<string, string | undefined>>;

/** Action nodes leading to action nodes: a loop in the menus, stopped rather than followed forever. */
const MAX_CHAINED_ACTIONS = 8;

/**
 * Goes to `target`: shows a screen, runs an action node's handler (from the current screen, which stays
 * the one `0. Back` returns to), or ends the session on an end node.
 */
export async function enter(turn: Turn, target: string, params: Params, depth = 0): Promise<void> {
  const node = nodeOf(turn.tree, target);
  switch (node.kind) {
    case 'action':
      if (depth >= MAX_CHAINED_ACTIONS)
        throw new Error(`more than ${MAX_CHAINED_ACTIONS} actions in a row at "${target}"`);
      await runAction(turn, node.action, undefined, depth + 1);
      return;
    case 'end': {
      const c = turn.cursor;
      c.ended = fillTemplate(node.text[c.lang] ?? '', params, turn.tree.placeholders, c.form);
      c.node = target;
      return;
    }
    case 'menu':
    case 'info':
    case 'input':
      showScreen(turn, target, params);
      return;
  }
}

/**
 * Runs the handler of `action` with `input` and follows its outcome. A handler may only lead to the nodes
 * its action declares in the menus; anything else is a bug and throws.
 */
export async function runAction(
  turn: Turn,
  action: CompiledAction,
  input: string | undefined,
  depth = 0,
): Promise<void> {
  const handler = turn.actions[action.name];
  if (!handler) throw new Error(`no handler for action "${action.name}"`);
  const outcome = await handler(actionContext(turn, input));
  if ('retry' in outcome) {
    turn.cursor.notice = { key: outcome.retry, system: false, params: outcome.params ?? {} };
    return;
  }
  if (!action.targets.includes(outcome.next)) {
    throw new Error(`action "${action.name}" led to "${outcome.next}", which its next: list does not name`);
  }
  turn.logger.debug(
    { sessionId: turn.request.sessionId, action: action.name, next: outcome.next },
    'ussd action',
  );
  turn.cursor.notice =
    outcome.notice === undefined
      ? undefined
      : { key: outcome.notice, system: false, params: outcome.params ?? {} };
  await enter(turn, outcome.next, outcome.params ?? {}, depth);
}
