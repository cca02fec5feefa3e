import type { CompiledInput, CompiledMenu } from '../../../generated/menus.js';
import { NAV_KEYS } from '../../../lib/ussd/screen-layout.js';
import { enter, runAction } from './enter.js';
import { goBack } from './navigate.js';
import { nodeOf, type Turn } from './turn.js';
import { runValidator } from './validators.js';

/** What one input did. */
export interface StepResult {
  /** Go on with the next input, or the session ended. */
  readonly next: 'continue' | 'end';
  /** The input was taken as a typed value (a name, a PIN), so it is masked in `processedText`. */
  readonly typed: boolean;
}

/**
 * Applies one input (one `*`-separated segment) to the cursor. An empty segment is the `*` key: exit.
 * `0` goes back (or to the previous page), `98` to the next page, `00` skips an optional input; anything
 * else is an option, or the value of an input. An unknown option keeps the screen and shows a notice.
 */
export async function step(turn: Turn, segment: string): Promise<StepResult> {
  const c = turn.cursor;
  c.notice = undefined;
  if (segment === '') {
    c.ended = turn.tree.system.goodbye[c.lang] ?? '';
    return { next: 'end', typed: false };
  }
  const node = nodeOf(turn.tree, c.node);
  switch (node.kind) {
    case 'menu':
      await menuStep(turn, node, segment);
      return after(turn, false);
    case 'info':
      if (!pageStep(turn, node.pages[c.lang]?.length ?? 1, segment)) invalid(turn);
      return after(turn, false);
    case 'input':
      return after(turn, await inputStep(turn, node, segment));
    case 'action':
    case 'end':
      throw new Error(`a session cannot rest on ${node.kind} node "${c.node}"`);
  }
}

function after(turn: Turn, typed: boolean): StepResult {
  return { next: turn.cursor.ended === undefined ? 'continue' : 'end', typed };
}

/** `98` and `0` between pages; `0` on the first page goes back. */
function pageStep(turn: Turn, pageCount: number, segment: string): boolean {
  const c = turn.cursor;
  if (segment === NAV_KEYS.more && c.page < pageCount - 1) {
    c.page += 1;
    return true;
  }
  if (segment === NAV_KEYS.back) {
    if (c.page > 0) {
      c.page -= 1;
      return true;
    }
    return goBack(turn);
  }
  return false;
}

function invalid(turn: Turn): void {
  turn.cursor.notice = { key: 'invalidChoice', system: true, params: {} };
}

async function menuStep(turn: Turn, node: CompiledMenu, segment: string): Promise<void> {
  const c = turn.cursor;
  const audience = c.isAuthenticated ? 'authenticated' : 'anonymous';
  const pages = node.pages[c.lang]?.[audience] ?? [];
  if (pageStep(turn, pages.length, segment)) return;
  const option = pages.flat().includes(segment) ? node.options.find((o) => o.key === segment) : undefined;
  if (!option) {
    invalid(turn);
    return;
  }
  if (option.action) {
    await runAction(turn, option.action, option.value);
    return;
  }
  if (option.next === undefined) throw new Error(`option ${option.key} of "${c.node}" leads nowhere`);
  await enter(turn, option.next, {});
}

/** An input screen's step; true when the segment was taken as a typed value (masked in processedText). */
async function inputStep(turn: Turn, node: CompiledInput, segment: string): Promise<boolean> {
  const c = turn.cursor;
  if (segment === NAV_KEYS.back) {
    if (!goBack(turn)) invalid(turn);
    return false;
  }
  const typed = segment !== NAV_KEYS.skip;
  let value: string | undefined;
  if (segment === NAV_KEYS.skip && node.optional) value = undefined;
  else if (node.validate === undefined) value = segment.trim();
  else {
    const checked = runValidator(node.validate, segment, node);
    if (!checked.ok) {
      c.notice = { key: checked.notice, system: false, params: checked.params ?? {} };
      return typed;
    }
    value = checked.value;
  }
  if (node.save !== undefined) {
    delete c.form[node.save];
    delete c.secrets[node.save];
    if (value !== undefined && node.secret) c.secrets[node.save] = await turn.secrets.hash(value);
    else if (value !== undefined) c.form[node.save] = value;
  }
  if (node.action) await runAction(turn, node.action, value);
  else if (node.next !== undefined) await enter(turn, node.next, {});
  else throw new Error(`input "${c.node}" leads nowhere`);
  return typed;
}
