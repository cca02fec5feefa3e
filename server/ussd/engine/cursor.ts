import type { MenuTree } from '../../../generated/menus.js';
import type { UssdSession } from './types.js';
import { engineData, readEngineData, type EngineData } from './session-data.js';

/** A notice to show above the screen: one of the tree's notices, or the engine's own `invalidChoice`. */
export interface Notice {
  key: string;
  system: boolean;
  params: Readonly<Record<string, string | undefined>>;
}

/** The state of a session while one request is handled; written back into the session at the end. */
export interface Cursor extends EngineData {
  node: string;
  isAuthenticated: boolean;
  notice: Notice | undefined;
  /** Set when the session ends: the text of the `END` reply. */
  ended: string | undefined;
}

/** A new session at the top menu. */
export function freshCursor(tree: MenuTree, lang: string): Cursor {
  return {
    v: 1,
    node: tree.start,
    lang: lang in tree.languages ? lang : tree.defaultLanguage,
    page: 0,
    params: {},
    history: [],
    form: {},
    secrets: {},
    isAuthenticated: false,
    notice: undefined,
    ended: undefined,
  };
}

/** The cursor of a stored session, or undefined when its data does not fit this engine and tree. */
export function cursorOf(session: UssdSession, tree: MenuTree): Cursor | undefined {
  const data = readEngineData(session.data);
  if (data === undefined) return undefined;
  const node = tree.nodes[session.state];
  const known = (id: string): boolean => tree.nodes[id] !== undefined;
  if (!node || node.kind === 'action' || node.kind === 'end' || !data.history.every((h) => known(h.node))) {
    return undefined;
  }
  if (!(data.lang in tree.languages)) return undefined;
  return {
    ...data,
    node: session.state,
    isAuthenticated: session.isAuthenticated,
    notice: undefined,
    ended: undefined,
  };
}

/** The part of the cursor that is stored in `session.data`. */
export function dataOf(cursor: Cursor): EngineData {
  return engineData(cursor);
}
