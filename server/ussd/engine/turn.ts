import type { MenuTree } from '../../../generated/menus.js';
import type { UssdRequest } from '../../../contracts/ussd.js';
import type { Logger } from '../../logger.js';
import type { AccountService } from '../accounts/accounts.js';
import type { SecretHasher } from '../crypto/secret-hash.js';
import type { AnyActionHandler } from './action-types.js';
import type { Cursor } from './cursor.js';

/** Everything one request works with: the tree, the handlers, the services, and the cursor it moves. */
export interface Turn {
  readonly tree: MenuTree;
  readonly actions: Readonly<Record<string, AnyActionHandler>>;
  readonly accounts: AccountService;
  /** Hashes secret inputs (a new PIN) while they wait for their confirmation. */
  readonly secrets: SecretHasher;
  readonly logger: Logger;
  readonly request: UssdRequest;
  readonly cursor: Cursor;
}

/** The node the cursor rests on, or an error naming it. */
export function nodeOf(tree: MenuTree, id: string): NonNullable<MenuTree['nodes'][string]> {
  const node = tree.nodes[id];
  if (!node) throw new Error(`menu node "${id}" does not exist`);
  return node;
}
