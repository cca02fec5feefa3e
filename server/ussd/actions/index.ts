import type { ActionHandlers } from '../engine/action-types.js';
import { changePin } from './change-pin.js';
import { checkCurrentPin } from './check-current-pin.js';
import { createAccount } from './create-account.js';
import { logout } from './logout.js';
import { setLanguage } from './set-language.js';
import { showAccountDetails } from './show-account-details.js';
import { startLogin } from './start-login.js';
import { useBoundAccount } from './use-bound-account.js';
import { verifyPin } from './verify-pin.js';

/**
 * The handler of every action the menus name. Typed against the generated `ActionName` and `ActionTargets`:
 * adding an action to the YAML without a handler here, or keeping one the YAML dropped, does not compile.
 */
export const actionHandlers: ActionHandlers = {
  changePin,
  checkCurrentPin,
  createAccount,
  logout,
  setLanguage,
  showAccountDetails,
  startLogin,
  useBoundAccount,
  verifyPin,
};
