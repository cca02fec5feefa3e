/**
 * Input that no text field accepts, anywhere: a NUL character (PostgreSQL refuses it in `text` and `jsonb`, so it
 * broke turns as a 500 or a run that never ended), a lone surrogate (not text: it cannot be written as UTF-8),
 * and JSON nested deeper than a documented limit (walked recursively, it overflowed the stack). One check for
 * every string and key of a request (issue 36); iterative, so any depth is safe to look at.
 */

/** How deep a JSON body may nest (objects and arrays), counted from its top: past it, 400. */
export const JSON_MAX_DEPTH = 64;

const NUL_OR_LONE_SURROGATE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `text` is text every store accepts: no NUL, no lone surrogate. */
export function isStorableText(text: string): boolean {
  return !NUL_OR_LONE_SURROGATE.test(text);
}

/** Why `text` is not text, in words naming the character (never echoing the rest), or undefined when it is. */
export function unsafeTextReason(text: string): string | undefined {
  const found = NUL_OR_LONE_SURROGATE.exec(text)?.[0];
  if (found === undefined) return undefined;
  if (found === '\0') return 'a NUL character (U+0000) is not accepted in any text.';
  const code = found.charCodeAt(0).toString(16).toUpperCase();
  return `a lone surrogate (U+${code}) is not text; send well-formed UTF-16.`;
}

/** A JSON path segment as a message shows it: identifiers as `.name`, anything else as `["…"]`, shortened. */
export function pathSegment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  if (/^[A-Za-z_$][\w$-]{0,63}$/.test(key)) return `.${key}`;
  return `[${JSON.stringify(key.length > 64 ? `${key.slice(0, 61)}...` : key)}]`;
}

/**
 * The first problem in a parsed JSON value, as `<path>: <reason>` (`body.metadata.note: a NUL character …`), or
 * undefined. Looks at every string and every object key; a key's problem is named at its object's path, so the
 * key itself is never echoed. Nesting past `maxDepth` is a problem of its own.
 */
export function findUnsafeText(value: unknown, root: string, maxDepth = JSON_MAX_DEPTH): string | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value: v, path, depth } = item;
    if (typeof v === 'string') {
      const reason = unsafeTextReason(v);
      if (reason) return `${path}: ${reason}`;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return `${root}: JSON nested deeper than ${maxDepth} levels is not accepted.`;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i], path: `${path}${pathSegment(i)}`, depth: depth + 1 });
      }
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    for (const [key] of entries) {
      const reason = unsafeTextReason(key);
      if (reason) return `${path}: ${reason.replace(/^a /, 'a key with a ')}`;
    }
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string, unknown];
      stack.push({ value: child, path: `${path}${pathSegment(key)}`, depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * What is stored when text cannot be refused (a model's answer, a tool's result): each NUL and lone surrogate
 * becomes U+FFFD, the replacement character, so a store never refuses it.
 */
export function toStorableText(text: string): string {
  return NUL_OR_LONE_SURROGATE.test(text)
    ? text.replace(new RegExp(NUL_OR_LONE_SURROGATE, 'g'), '\ufffd')
    : text;
}

/**
 * `value` with every NUL and lone surrogate in its strings and keys replaced by U+FFFD (see
 * {@link toStorableText}), through its JSON text: JSON.stringify writes exactly those characters as `\u` escapes
 * (a well-formed pair is written as itself), so replacing the escapes that are not themselves escaped is enough.
 */
export function toStorableJson<T>(value: T): T {
  const text = JSON.stringify(value);
  if (text === undefined || !/\\u(?:0000|d[89a-f])/i.test(text)) return value;
  return JSON.parse(text.replace(/(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi, '$1\\ufffd')) as T;
}
