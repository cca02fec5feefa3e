import type { ValidatorName, ValidatorNotices } from '../../../generated/menus.js';
import { isWeakPin } from './weak-pin.js';

/** A checked input: the value to use (normalised), or the notice to show (with its placeholder values). */
export type Checked<Notice extends string> =
  { ok: true; value: string } | { ok: false; notice: Notice; params?: Readonly<Record<string, string>> };

/** What a check reads from its input node besides the value. */
export interface CheckOptions {
  /** `maxLength:` of a `validate: text` input. */
  maxLength?: number | undefined;
  /** `pattern:` of a `validate: text` input: the whole answer must match it. */
  pattern?: string | undefined;
  /** `patternNotice:`, shown for an answer that does not match `pattern`. */
  patternNotice?: string | undefined;
}

const NAME_CHARS = /^[\p{L}\p{M}' ’-]+$/u;
const LETTER = /\p{L}/gu;
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const PIN = /^\d{5}$/;
const CUSTOMER_ID = /^C[A-Z0-9]{8}$/;

/** The built-in checks named by `validate:` in the menus (see scripts/menus/validators.ts). */
export const validators: {
  readonly [V in ValidatorName]: (raw: string, options?: CheckOptions) => Checked<ValidatorNotices[V]>;
} = {
  fullName(raw) {
    const value = raw.trim().replace(/\s+/g, ' ');
    const length = [...value].length;
    const letters = value.match(LETTER)?.length ?? 0;
    return length >= 2 && length <= 60 && letters >= 2 && NAME_CHARS.test(value)
      ? { ok: true, value }
      : { ok: false, notice: 'invalidName' };
  },
  email(raw) {
    const value = raw.trim();
    return value.length <= 60 && EMAIL.test(value)
      ? { ok: true, value }
      : { ok: false, notice: 'invalidEmail' };
  },
  pin(raw) {
    return PIN.test(raw) ? { ok: true, value: raw } : { ok: false, notice: 'pinFormat' };
  },
  newPin(raw) {
    if (!PIN.test(raw)) return { ok: false, notice: 'pinFormat' };
    return isWeakPin(raw) ? { ok: false, notice: 'pinWeak' } : { ok: true, value: raw };
  },
  customerId(raw) {
    const value = raw.trim().toUpperCase();
    return CUSTOMER_ID.test(value) ? { ok: true, value } : { ok: false, notice: 'invalidCustomerId' };
  },
  text(raw, { maxLength } = {}) {
    if (maxLength === undefined)
      throw new Error('validate: text needs maxLength (the generator requires it)');
    const value = raw.trim().replace(/\s+/g, ' ');
    if (value === '') return { ok: false, notice: 'textEmpty' };
    return [...value].length <= maxLength
      ? { ok: true, value }
      : { ok: false, notice: 'textTooLong', params: { maxLength: String(maxLength) } };
  },
};

/** A tree's patterns, compiled once each: `^(?:pattern)$` with the `u` flag, as the generator checked them. */
const compiled = new Map<string, RegExp>();

function wholeMatch(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re === undefined) {
    re = new RegExp(`^(?:${pattern})$`, 'u');
    compiled.set(pattern, re);
  }
  return re;
}

/**
 * Runs the check a compiled tree names, then the input's `pattern` on the value it accepted; throws for a
 * name this engine does not know.
 */
export function runValidator(name: string, raw: string, options: CheckOptions = {}): Checked<string> {
  if (!(name in validators)) throw new Error(`unknown validator "${name}"`);
  const checked = validators[name as ValidatorName](raw, options);
  const { pattern, patternNotice } = options;
  if (!checked.ok || pattern === undefined || wholeMatch(pattern).test(checked.value)) return checked;
  if (patternNotice === undefined) throw new Error('pattern needs patternNotice (the generator requires it)');
  return { ok: false, notice: patternNotice };
}
