/**
 * What stands in the stored `processedText` for each character of a value typed into an input screen
 * (a name, an e-mail, a customer ID, a PIN): the session keeps the shape of the text, never those values.
 */
const MASK = '•';

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

/** True when `value` is `masked` with the masked characters filled in. */
function matchesMasked(value: string, masked: string): boolean {
  if (value.length !== masked.length) return false;
  for (let i = 0; i < value.length; i++) {
    if (masked[i] !== MASK && masked[i] !== value[i]) return false;
  }
  return true;
}

/**
 * The inputs of an accumulated `text`, in order: the one place the gateway's text is split. The initial dial
 * (`text` empty) has none; otherwise inputs are joined with `*`, so an empty input is the `*` key itself
 * (`1**` is `1` then `*`, seen as two empty inputs).
 */
export function segmentsOf(text: string): string[] {
  return text === '' ? [] : text.split('*');
}

/**
 * Compares the inputs of a request (`segments`, from {@link segmentsOf}) with what the session already
 * processed (stored with typed values masked): the same inputs again, inputs that extend them, or neither.
 */
export function newInput(processed: string, segments: readonly string[]): NewInput {
  const done = segmentsOf(processed);
  if (segments.length < done.length) return { kind: 'diverged' };
  for (let i = 0; i < done.length; i++) {
    if (!matchesMasked(segments[i] ?? '', done[i] ?? '')) return { kind: 'diverged' };
  }
  return segments.length === done.length
    ? { kind: 'repeat' }
    : { kind: 'new', segments: segments.slice(done.length) };
}

/** True when `text` is the request that `processed` (masked) answered: a gateway retry of it. */
export function isRepeatOf(processed: string, text: string): boolean {
  return newInput(processed, segmentsOf(text)).kind === 'repeat';
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
