/**
 * Customer IDs in recorded replies: a flow never holds a real one (each run creates new accounts), only
 * `{name}` placeholders. A template's known `{name}` is filled in; an unknown one captures the ID at its
 * place in the reply.
 */

const PLACEHOLDER = /\{([a-zA-Z][a-zA-Z0-9]*)\}/g;

/** A customer ID as the service writes them (C and 8 symbols; see server/ussd/accounts/customer-id.ts). */
const CUSTOMER_ID = /\bC[0-9A-Z]{8}\b/g;

/** Fills every known `{name}` of `template`; unknown ones stay as written. */
export function fill(template: string, vars: ReadonlyMap<string, string>): string {
  return template.replace(PLACEHOLDER, (m, k: string) => vars.get(k) ?? m);
}

/** The `{name}`s of `template` that `vars` does not know yet, in order. */
export function unknownNames(template: string, vars: ReadonlyMap<string, string>): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '').filter((k) => !vars.has(k));
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Defines every unknown `{name}` of `template` from what stands at its place in `reply`. Returns false
 * when the reply does not have the template's shape (the names stay unknown).
 */
export function capture(template: string, reply: string, vars: Map<string, string>): boolean {
  const unknown = unknownNames(template, vars);
  if (unknown.length === 0) return true;
  const pattern = template
    .split(PLACEHOLDER)
    .map((part, i) =>
      i % 2 === 0 ? escape(part) : vars.has(part) ? escape(vars.get(part) ?? '') : '([0-9A-Z]+)',
    )
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(reply);
  if (!match) return false;
  unknown.forEach((k, i) => vars.set(k, match[i + 1] ?? ''));
  return true;
}

/**
 * The customer IDs in `reply` no placeholder stands for yet, in order of appearance, leaving out words of
 * the menus themselves that look like one (`notIds`).
 */
export function newIds(
  reply: string,
  vars: ReadonlyMap<string, string>,
  notIds: ReadonlySet<string>,
): string[] {
  const known = new Set(vars.values());
  return [...new Set([...reply.matchAll(CUSTOMER_ID)].map((m) => m[0]))].filter(
    (id) => !known.has(id) && !notIds.has(id),
  );
}

/** `reply` with every known value written as its `{name}` (longest values first, so none is cut). */
export function templateOf(reply: string, vars: ReadonlyMap<string, string>): string {
  const entries = [...vars].filter(([, v]) => v !== '').sort(([, a], [, b]) => b.length - a.length);
  let out = reply;
  for (const [name, value] of entries) out = out.split(value).join(`{${name}}`);
  return out;
}

/** Words of the menus' own texts shaped like a customer ID: never taken for one. */
export function idLikeWords(texts: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(CUSTOMER_ID)) out.add(m[0]);
  return out;
}

/** A name for the n-th new customer ID that `taken` does not use: customer1, customer2, … */
export function freshName(taken: ReadonlySet<string>): string {
  for (let i = 1; ; i++) if (!taken.has(`customer${i}`)) return `customer${i}`;
}
