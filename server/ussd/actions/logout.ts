import type { ActionTargets } from '../../../generated/menus.js';
import type { ActionHandler } from '../engine/action-types.js';

/** Log out: back to the top menu as an anonymous user. */
export const logout: ActionHandler<ActionTargets['logout']> = (ctx) => {
  ctx.logout();
  return Promise.resolve({ next: 'preMenu', notice: 'loggedOut' });
};
