/** `{name}` in a text: replaced at run time by a value of at most the declared length. */
const PLACEHOLDER = /\{([^{}]*)\}/g;

/** The placeholder names used in a text, in order (with repeats). */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '');
}

/** True when every `{` and `}` belongs to a `{name}` pair. */
export function bracesBalanced(text: string): boolean {
  return !/[{}]/.test(text.replace(PLACEHOLDER, ''));
}

/** The text with every placeholder at its longest (a run of `W`), to measure the worst case. */
export function worstCase(text: string, maxLengths: ReadonlyMap<string, number>): string {
  return text.replace(PLACEHOLDER, (_, key: string) => 'W'.repeat(maxLengths.get(key) ?? 0));
}
