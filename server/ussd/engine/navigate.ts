import type { CompiledNode } from '../../../generated/menus.js';
import type { Cursor } from './cursor.js';
import { nodeOf, type Turn } from './turn.js';

/** True when `0` on the first page leads somewhere. */
export function canGoBack(cursor: Cursor, node: CompiledNode): boolean {
  if (node.kind === 'action' || node.kind === 'end' || node.back === false) return false;
  return typeof node.back === 'string' || cursor.history.length > 0;
}

/**
 * Shows `target` (a menu, info or input node). Going to a screen already in the history rewinds the
 * history to it (so a finished form does not leave its steps behind `0. Back`); the top menu clears it.
 * Arriving at a menu forgets the secrets; the saved answers are kept for later screens until the top
 * menu (see {@link leaveForm}).
 */
export function showScreen(
  turn: Turn,
  target: string,
  params: Readonly<Record<string, string | undefined>>,
): void {
  const c = turn.cursor;
  const node = nodeOf(turn.tree, target);
  const index = c.history.findIndex((h) => h.node === target);
  if (index >= 0) c.history = c.history.slice(0, index);
  else if (target === turn.tree.start) c.history = [];
  else if (target !== c.node) c.history.push({ node: c.node, params: c.params });
  c.node = target;
  c.page = 0;
  c.params = definedOnly(params);
  if (node.kind === 'menu') leaveForm(c, target === turn.tree.start);
}

/** `0. Back`: the node's fixed back target, or the previous screen. False when there is none. */
export function goBack(turn: Turn): boolean {
  const c = turn.cursor;
  const node = nodeOf(turn.tree, c.node);
  if (!canGoBack(c, node) || node.kind === 'action' || node.kind === 'end') return false;
  if (typeof node.back === 'string') {
    const target = node.back;
    const index = c.history.findIndex((h) => h.node === target);
    const entry = index >= 0 ? c.history[index] : undefined;
    c.history =
      index >= 0
        ? c.history.slice(0, index)
        : target === turn.tree.start
          ? []
          : [{ node: turn.tree.start, params: {} }];
    c.node = target;
    c.params = entry?.params ?? {};
  } else {
    const entry = c.history.pop();
    if (!entry) return false;
    c.node = entry.node;
    c.params = entry.params;
  }
  c.page = 0;
  if (nodeOf(turn.tree, c.node).kind === 'menu') leaveForm(c, c.node === turn.tree.start);
  return true;
}

/** Forgets every saved input and secret. */
export function clearForm(cursor: Cursor): void {
  cursor.form = {};
  cursor.secrets = {};
}

/**
 * A menu ends a form: its secrets (a new PIN waiting for its confirmation) are forgotten. The saved
 * answers stay for the later screens of the session (`{town}` after `save: town`) until the top menu,
 * which forgets them too: the generator checks each way to a screen from there.
 */
function leaveForm(cursor: Cursor, top: boolean): void {
  if (top) clearForm(cursor);
  else if (Object.keys(cursor.secrets).length > 0) cursor.secrets = {};
}

function definedOnly(params: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined) out[key] = value;
  return out;
}
