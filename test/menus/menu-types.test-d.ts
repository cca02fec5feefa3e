import { expectTypeOf, test } from 'vitest';
import type { ActionName, ActionTargets, Language, MessageKey, NodeId } from '../../generated/menus.js';
import type { LanguageCode } from '../../server/ussd/accounts/accounts.js';
import { actionHandlers } from '../../server/ussd/actions/index.js';
import type { ActionHandler, ActionHandlers } from '../../server/ussd/engine/action-types.js';

test('the menus are written in exactly the languages accounts can store', () => {
  expectTypeOf<Language>().toEqualTypeOf<LanguageCode>();
});

test('the handler map has one handler per action named in the YAML', () => {
  expectTypeOf(actionHandlers).toEqualTypeOf<ActionHandlers>();
  expectTypeOf<keyof ActionHandlers>().toEqualTypeOf<ActionName>();
  const { logout: _dropped, ...missingOne } = actionHandlers;
  // @ts-expect-error a missing handler does not compile
  const missing: ActionHandlers = missingOne;
  // @ts-expect-error an extra handler (an action the YAML does not name) does not compile
  const extra: ActionHandlers = { ...actionHandlers, sendSms: actionHandlers.logout };
  void missing;
  void extra;
});

test('a handler may only lead to the nodes its action declares, and only show declared notices', () => {
  expectTypeOf<ActionTargets['logout']>().toEqualTypeOf<'preMenu'>();
  expectTypeOf<'preMenu'>().toMatchTypeOf<NodeId>();
  // @ts-expect-error logout may only lead to preMenu
  const wrongTarget: ActionHandler<ActionTargets['logout']> = () => Promise.resolve({ next: 'services' });
  type LogoutOutcome = Awaited<ReturnType<ActionHandler<ActionTargets['logout']>>>;
  // @ts-expect-error a notice that is not in the menus
  const wrongNotice: LogoutOutcome = { next: 'preMenu', notice: 'bye' };
  expectTypeOf<'loggedOut'>().toMatchTypeOf<MessageKey>();
  void wrongTarget;
  void wrongNotice;
});
