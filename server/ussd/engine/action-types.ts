import type {
  ActionName,
  ActionTargets,
  FormField,
  Language,
  MessageKey,
  NodeId,
  Placeholder,
} from '../../../generated/menus.js';
import type { Logger } from '../../logger.js';
import type { AccountService, Customer } from '../accounts/accounts.js';

/** Values for the `{placeholders}` of a screen or a notice. Longer values are cut to the declared length. */
export type Params = Partial<Record<Placeholder, string>>;

/**
 * What an action handler sees and may change. Handlers never get the session itself: they read the
 * input, the saved form and the account, and change the session only through these methods.
 */
export interface ActionContext {
  /** The value typed at an input (after its check), the option's `value:`, or undefined. */
  readonly input: string | undefined;
  readonly phoneNumber: string;
  /** The telecom gateway's session id: what makes a retried confirmation recognisable. */
  readonly sessionId: string;
  /** The language the user sees now. */
  readonly language: Language;
  /** Language code → the language's own name (for showing it). */
  readonly languageNames: Readonly<Record<string, string>>;
  /** The logged-in customer, or undefined. */
  readonly customerId: string | undefined;
  readonly accounts: AccountService;
  readonly logger: Logger;
  /** A value an earlier input saved (`save:`); secret inputs are never readable. */
  form(field: FormField): string | undefined;
  remember(field: FormField, value: string): void;
  forget(field: FormField): void;
  /** True when `value` is what the secret input `field` received (compared with its salted hash). */
  matchesSecret(field: FormField, value: string): Promise<boolean>;
  /** Marks the session as logged in as `customer` and switches to the customer's language. */
  login(customer: Customer): void;
  logout(): void;
  setLanguage(language: Language): void;
}

/**
 * Where a handler leads: to one of the nodes its action declares (`next:`), optionally with a notice in
 * front and values for the target's placeholders; or back to the same screen with a notice (`retry`).
 */
export type ActionOutcome<Target extends string = NodeId> =
  { next: Target; notice?: MessageKey; params?: Params } | { retry: MessageKey; params?: Params };

/** The code behind one action named in the menus. */
export type ActionHandler<Target extends string = NodeId> = (
  ctx: ActionContext,
) => Promise<ActionOutcome<Target>>;

/** One handler per action of the menus, each limited to its action's targets: a missing or extra one does not compile. */
export type ActionHandlers = { readonly [A in ActionName]: ActionHandler<ActionTargets[A]> };

/** Handlers as the engine holds them, for any compiled tree (the real one or a test fixture's). */
export type AnyActionHandler = (
  ctx: ActionContext,
) => Promise<
  | { next: string; notice?: string; params?: Readonly<Record<string, string | undefined>> }
  | { retry: string; params?: Readonly<Record<string, string | undefined>> }
>;
