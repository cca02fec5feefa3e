const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * Fills `{placeholders}`. A value longer than the placeholder's declared length is cut to it, so a screen
 * never grows past what the generator measured; a missing value leaves the place empty.
 */
export function fillTemplate(
  template: string,
  params: Readonly<Record<string, string | undefined>>,
  maxLengths: Readonly<Record<string, number>>,
): string {
  // Most labels have no placeholder: skip the regular expression for them.
  if (!template.includes('{')) return template;
  return template.replace(PLACEHOLDER, (_, key: string) => {
    const value = params[key] ?? '';
    const max = maxLengths[key] ?? 0;
    const chars = [...value.replace(/\s+/g, ' ')];
    return chars.length > max ? chars.slice(0, max).join('') : chars.join('');
  });
}
