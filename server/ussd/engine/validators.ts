import type { ValidatorName, ValidatorNotices } from '../../../generated/menus.js';
import { isWeakPin } from './weak-pin.js';

/** A checked input: the value to use (normalised), or the notice to show. */
export type Checked<Notice extends string> = { ok: true; value: string } | { ok: false; notice: Notice };

const NAME_CHARS = /^[\p{L}\p{M}' ’-]+$/u;
const LETTER = /\p{L}/gu;
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const PIN = /^\d{5}$/;
const CUSTOMER_ID = /^C[A-Z0-9]{8}$/;

/** The built-in checks named by `validate:` in the menus (see scripts/menus/validators.ts). */
export const validators: { readonly [V in ValidatorName]: (raw: string) => Checked<ValidatorNotices[V]> } = {
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
};

/** Runs the check a compiled tree names; throws for a name this engine does not know. */
export function runValidator(name: string, raw: string): Checked<string> {
  if (!(name in validators)) throw new Error(`unknown validator "${name}"`);
  return validators[name as ValidatorName](raw);
}
