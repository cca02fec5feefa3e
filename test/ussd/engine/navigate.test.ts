import { describe, expect, it } from 'vitest';
import { menuTree, type MenuTree } from '../../../generated/menus.js';
import { freshCursor, type Cursor } from '../../../server/ussd/engine/cursor.js';
import { canGoBack, goBack, showScreen } from '../../../server/ussd/engine/navigate.js';
import { nodeOf, type Turn } from '../../../server/ussd/engine/turn.js';
import { fixtureTree } from '../../helpers/fixture-menus.js';

// The engine's moves between screens (server/ussd/engine/navigate.ts) on the shipped menus and the golden fixture:
// what `0. Back` may do on each kind of node, where it leads, and what the history, page, parameters and form look
// like after each move. The flows tests drive these through whole dialogs; Stryker's ussd-engine run showed that
// most of the history bookkeeping could change without any of them noticing.

/** A turn on `tree` whose cursor rests on `node` with `history` behind it (only the tree and cursor are used). */
function turnAt(
  node: string,
  history: { node: string; params?: Record<string, string> }[] = [],
  tree: MenuTree = menuTree,
): Turn & { cursor: Cursor } {
  const cursor: Cursor = {
    ...freshCursor(tree, 'en'),
    node,
    page: 2,
    params: { here: 'yes' },
    history: history.map((h) => ({ node: h.node, params: h.params ?? {} })),
    form: { name: 'Amina' },
    secrets: { pin: 'hash' },
  };
  return { tree, cursor } as unknown as Turn & { cursor: Cursor };
}

const canGoBackAt = (node: string, history: { node: string }[] = [], tree: MenuTree = menuTree): boolean => {
  const turn = turnAt(node, history, tree);
  return canGoBack(turn.cursor, nodeOf(tree, node));
};

describe('canGoBack', () => {
  it('never from the top menu (back: false), an end or an action node', () => {
    expect(canGoBackAt('preMenu', [{ node: 'knowMore' }])).toBe(false);
    expect(canGoBackAt('accountLocked', [{ node: 'preMenu' }])).toBe(false);
    expect(canGoBackAt('quickSignIn', [{ node: 'preMenu' }], fixtureTree('basic'))).toBe(false);
  });

  it('a screen with back: true only when something is behind it; a fixed back target always', () => {
    expect(canGoBackAt('knowMore')).toBe(false);
    expect(canGoBackAt('knowMore', [{ node: 'preMenu' }])).toBe(true);
    expect(canGoBackAt('aboutAccounts', [{ node: 'knowMoreAccounts' }])).toBe(true);
    expect(canGoBackAt('accountCreated')).toBe(true);
  });
});

describe('showScreen', () => {
  it('to a new screen: the current one goes on the history, page 0, only the defined parameters', () => {
    const turn = turnAt('knowMore', [{ node: 'preMenu' }]);
    showScreen(turn, 'aboutAccounts', { a: '1', b: undefined });
    expect(turn.cursor).toMatchObject({
      node: 'aboutAccounts',
      page: 0,
      params: { a: '1' },
      history: [
        { node: 'preMenu', params: {} },
        { node: 'knowMore', params: { here: 'yes' } },
      ],
    });
    expect(Object.keys(turn.cursor.params)).toEqual(['a']);
    // An info screen keeps the saved answers; a menu forgets the secrets and keeps the answers for later
    // screens; the top menu forgets them too.
    expect(turn.cursor.form).toEqual({ name: 'Amina' });
    showScreen(turn, 'knowMoreAccounts', {});
    expect([turn.cursor.form, turn.cursor.secrets]).toEqual([{ name: 'Amina' }, {}]);
    showScreen(turn, 'preMenu', {});
    expect([turn.cursor.form, turn.cursor.secrets]).toEqual([{}, {}]);
  });

  it('to a screen already in the history: the history is rewound to just before it', () => {
    const turn = turnAt('aboutAccounts', [
      { node: 'preMenu' },
      { node: 'knowMore' },
      { node: 'knowMoreAccounts' },
    ]);
    showScreen(turn, 'knowMore', {});
    expect(turn.cursor.node).toBe('knowMore');
    expect(turn.cursor.history).toEqual([{ node: 'preMenu', params: {} }]);
    // The first entry of the history too.
    const first = turnAt('knowMoreAccounts', [{ node: 'knowMore' }]);
    showScreen(first, 'knowMore', {});
    expect(first.cursor.history).toEqual([]);
  });

  it('to the top menu: an empty history, wherever it came from', () => {
    const turn = turnAt('accountCreated');
    showScreen(turn, 'preMenu', {});
    expect(turn.cursor).toMatchObject({ node: 'preMenu', history: [] });
    expect([turn.cursor.form, turn.cursor.secrets]).toEqual([{}, {}]);
  });

  it('to the screen it is on (a retry): the history stays as it was, page 0', () => {
    const turn = turnAt('createName', [{ node: 'preMenu' }]);
    showScreen(turn, 'createName', { retry: '1' });
    expect(turn.cursor).toMatchObject({
      node: 'createName',
      page: 0,
      params: { retry: '1' },
      history: [{ node: 'preMenu', params: {} }],
      form: { name: 'Amina' },
    });
  });
});

describe('goBack', () => {
  it('nowhere to go: false, and nothing changes', () => {
    for (const turn of [turnAt('preMenu', [{ node: 'knowMore' }]), turnAt('knowMore')]) {
      const before = structuredClone(turn.cursor);
      expect(goBack(turn)).toBe(false);
      expect(turn.cursor).toEqual(before);
    }
  });

  it('the previous screen, with its parameters, page 0; a menu clears the form, an input keeps it', () => {
    const turn = turnAt('createPin', [
      { node: 'preMenu' },
      { node: 'createName', params: { retry: '1' } },
      { node: 'createEmail' },
    ]);
    expect(goBack(turn)).toBe(true);
    expect(turn.cursor).toMatchObject({
      node: 'createEmail',
      page: 0,
      params: {},
      history: [
        { node: 'preMenu', params: {} },
        { node: 'createName', params: { retry: '1' } },
      ],
      form: { name: 'Amina' },
    });
    expect(goBack(turn)).toBe(true);
    expect(turn.cursor).toMatchObject({
      node: 'createName',
      params: { retry: '1' },
      form: { name: 'Amina' },
    });
    expect(goBack(turn)).toBe(true);
    expect(turn.cursor).toMatchObject({ node: 'preMenu', history: [] });
    // Arriving at the top menu forgets the answers and secrets (toMatchObject would accept any form here).
    expect([turn.cursor.form, turn.cursor.secrets]).toEqual([{}, {}]);
  });

  it('a fixed back target in the history: rewound to it, with the parameters it had', () => {
    const turn = turnAt('accountCreated', [
      { node: 'preMenu' },
      { node: 'accountMenu', params: { name: 'Amina' } },
      { node: 'services' },
    ]);
    expect(goBack(turn)).toBe(true);
    expect(turn.cursor).toMatchObject({
      node: 'accountMenu',
      page: 0,
      params: { name: 'Amina' },
      history: [{ node: 'preMenu', params: {} }],
    });
    // A menu other than the top one forgets the secrets and keeps the saved answers.
    expect([turn.cursor.form, turn.cursor.secrets]).toEqual([{ name: 'Amina' }, {}]);
    // The target first in the history: rewound to nothing, its parameters kept.
    const first = turnAt('accountCreated', [{ node: 'accountMenu', params: { name: 'Juma' } }]);
    expect(goBack(first)).toBe(true);
    expect(first.cursor).toMatchObject({ node: 'accountMenu', params: { name: 'Juma' }, history: [] });
  });

  it('a fixed back target not in the history: the target, with the top menu behind it', () => {
    const turn = turnAt('accountCreated', [{ node: 'createPinConfirm' }]);
    expect(goBack(turn)).toBe(true);
    expect(turn.cursor).toMatchObject({
      node: 'accountMenu',
      params: {},
      history: [{ node: 'preMenu', params: {} }],
    });
  });

  it('a fixed back target that is the top menu: an empty history', () => {
    const tree = fixtureTree('basic');
    const turn = turnAt('choices', [{ node: 'askName' }], tree);
    expect(goBack(turn)).toBe(true);
    expect(turn.cursor).toMatchObject({ node: 'preMenu', history: [], params: {} });
  });
});
