const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * Fills `{placeholders}`: from `params` (what an action gave the screen), else from `saved` (the answers
 * kept with `save:`). A value longer than the placeholder's longest length is cut to it, so a screen never
 * grows past what the generator measured; a missing value (the generator refuses a way without one)
 * leaves the place empty.
 */
export function fillTemplate(
  template: string,
  params: Readonly<Record<string, string | undefined>>,
  maxLengths: Readonly<Record<string, number>>,
  saved?: Readonly<Record<string, string>>,
): string {
  // Most labels have no placeholder: skip the regular expression for them.
  if (!template.includes('{')) return template;
  return template.replace(PLACEHOLDER, (_, key: string) => {
    const value = params[key] ?? saved?.[key] ?? '';
    const max = maxLengths[key] ?? 0;
    const chars = [...value.replace(/\s+/g, ' ')];
    return chars.length > max ? chars.slice(0, max).join('') : chars.join('');
  });
}
