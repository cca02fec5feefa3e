/**
 * The built-in input checks an `input` node can name with `validate:`, and the notice each failure shows.
 * The engine implements every one (server/ussd/engine/validators.ts); the generated `ValidatorNotices`
 * type makes the compiler hold the two lists together.
 */
export const VALIDATORS = {
  /** Letters, spaces, apostrophes and hyphens, 2 to 60 characters. */
  fullName: ['invalidName'],
  /** An e-mail address of at most 60 characters. */
  email: ['invalidEmail'],
  /** Exactly 5 digits (a PIN being checked). */
  pin: ['pinFormat'],
  /** Exactly 5 digits that are not easy to guess (a PIN being chosen). */
  newPin: ['pinFormat', 'pinWeak'],
  /** `C` followed by 8 letters or digits. */
  customerId: ['invalidCustomerId'],
  /**
   * Free text of at most the input's `maxLength:` characters (spaces squeezed, trimmed); blank is refused.
   * `textTooLong` may name the limit as `{maxLength}`.
   */
  text: ['textEmpty', 'textTooLong'],
} as const satisfies Record<string, readonly string[]>;

export type ValidatorName = keyof typeof VALIDATORS;

export const VALIDATOR_NAMES = Object.keys(VALIDATORS).sort() as [ValidatorName, ...ValidatorName[]];

/**
 * A shortest value each check accepts: what the generator counts for an input when it measures the
 * shortest accumulated `text` of a flow (check-text-length.ts). test/menus/text-length.test.ts holds each
 * one to the engine's check, which must accept it.
 */
export const VALIDATOR_SHORTEST: Readonly<Record<ValidatorName, string>> = {
  fullName: 'Al',
  email: 'a@b.c',
  pin: '13579',
  newPin: '13579',
  customerId: 'C12345678',
  text: 'x',
};

/**
 * The longest value each check accepts, in characters: the longest a saved answer (`save:`) can be when a
 * later screen shows it as `{name}`. `text` is the input's own `maxLength:`.
 */
export const VALIDATOR_LONGEST: Readonly<Record<Exclude<ValidatorName, 'text'>, number>> = {
  fullName: 60,
  email: 60,
  pin: 5,
  newPin: 5,
  customerId: 9,
};
