/**
 * What stands in the stored `processedText` for each character of a value typed into an input screen
 * (a name, an e-mail, a customer ID, a PIN): the session keeps the shape of the text, never those values.
 */
export const MASK = '•';

/** How a request's accumulated `text` relates to what the session already processed. */
export type NewInput =
  /** The same text again (a retry): answer the last reply, change nothing. */
  | { kind: 'repeat' }
  /** Not an extension of what was processed (a late or reordered request): answer the last reply. */
  | { kind: 'diverged' }
  /** New inputs, in order; an empty one is the `*` key. */
  | { kind: 'new'; segments: string[] };

/** Replaces every character of a typed value by {@link MASK}, keeping its length. */
export function maskValue(value: string): string {
  return MASK.repeat(value.length);
}

/** True when `text` is `masked` with the masked characters filled in. */
function matchesMasked(text: string, masked: string): boolean {
  if (text.length !== masked.length) return false;
  for (let i = 0; i < text.length; i++) {
    if (masked[i] !== MASK && masked[i] !== text[i]) return false;
  }
  return true;
}

/**
 * Splits off the inputs that follow `processed` (stored with typed values masked) in `text`. Inputs are
 * joined with `*`, so `1**` after `1` is the single input `*`, seen as empty segments.
 */
export function newInput(processed: string, text: string): NewInput {
  if (matchesMasked(text, processed)) return { kind: 'repeat' };
  if (processed === '') return { kind: 'new', segments: text.split('*') };
  const extends_ =
    text.length > processed.length &&
    text[processed.length] === '*' &&
    matchesMasked(text.slice(0, processed.length), processed);
  return extends_
    ? { kind: 'new', segments: text.slice(processed.length + 1).split('*') }
    : { kind: 'diverged' };
}

/** The new `processedText`: what was processed before, then the new segments with typed values masked. */
export function appendProcessed(
  processed: string,
  segments: readonly string[],
  typed: readonly boolean[],
): string {
  const added = segments.map((s, i) => (typed[i] === false ? s : maskValue(s))).join('*');
  return processed === '' ? added : `${processed}*${added}`;
}
