import type { ProductionRule } from './config-section.js';

/**
 * The shortest token or shared secret production accepts (OPERATOR_TOKEN, CHAIN_REST_TOKEN,
 * USSD_AGGREGATOR_SECRET). `openssl rand -hex 24` prints 48 characters.
 */
const SECRET_MIN_LENGTH = 24;

/**
 * Words that mark a value as an example left in place, matched in the value lower-cased with everything but
 * letters and digits removed (`Change_Me` → `changeme`). Each is five letters or more, so a random secret
 * contains one by chance about once in a million (base64), never (hex).
 */
const PLACEHOLDER_WORDS = [
  'changeme',
  'replace',
  'placeholder',
  'example',
  'secret',
  'password',
  'passwd',
  'dummy',
  'sample',
];

/**
 * Whether a configured value is a placeholder rather than a secret: an ellipsis (`...`, `…`), a `<name>` to
 * fill in, one short run repeated (`xxx`, `0000…`, `abab…`), or a placeholder word (`changeme`, `secret`,
 * `password` …).
 */
export function isPlaceholder(value: string): boolean {
  if (value.includes('...') || value.includes('…') || /<[^>]*>/.test(value)) return true;
  if (/^(.{1,4})\1*$/su.test(value)) return true;
  const letters = value.toLowerCase().replace(/[^a-z0-9]/g, '');
  return PLACEHOLDER_WORDS.some((word) => letters.includes(word));
}

/**
 * Why production refuses `value` as a token or shared secret (`a placeholder`, `3 characters`), or undefined
 * when it is fit. Never includes the value itself, so the reason can be logged or shown.
 */
function weakSecretReason(value: string): string | undefined {
  if (isPlaceholder(value)) return 'a placeholder';
  const length = [...value].length;
  if (length < SECRET_MIN_LENGTH) return `${length} character${length === 1 ? '' : 's'}`;
  return undefined;
}

/** The production rule of a token or shared secret: unset, or at least {@link SECRET_MIN_LENGTH} characters and no placeholder. */
export function weakSecretRule<Name extends string>(
  name: Name,
): ProductionRule<Partial<Record<Name, string>>> {
  return {
    variables: [name],
    rule: `When set: at least ${SECRET_MIN_LENGTH} characters, not a placeholder.`,
    refuse: (config) => {
      const value = config[name];
      const why = value === undefined ? undefined : weakSecretReason(value);
      return why === undefined
        ? undefined
        : `${name} of at least ${SECRET_MIN_LENGTH} characters, not a placeholder (this one is ${why}; openssl rand -hex 24)`;
    },
  };
}
