import type { ParsedNode } from './file-schema.js';
import type { Location } from './locate.js';
import type { MenuModel } from './load-model.js';
import { VALIDATOR_LONGEST } from './validators.js';

type Input = Extract<ParsedNode, { type: 'input' }>;

/** An answer kept with `save: <name>`, which later screens may show as `{name}`. */
export interface SavedAnswer {
  /** Its longest length in characters; undefined when an input saving it has no check to bound it. */
  longest: number | undefined;
  /** Some input saving it is `secret: true`: it is kept as a hash only and can never be shown. */
  secret: boolean;
  /** The inputs that save it. */
  savedAt: Location[];
}

/** The longest answer an input accepts, or undefined when nothing bounds it (no `validate:`). */
export function longestAnswer(node: Input): number | undefined {
  if (node.validate === undefined) return undefined;
  if (node.validate === 'text') return node.maxLength;
  return VALIDATOR_LONGEST[node.validate];
}

/** Every name an input saves, with its longest length (the longest of all inputs saving it). */
export function savedAnswers(model: MenuModel): Map<string, SavedAnswer> {
  const out = new Map<string, SavedAnswer>();
  for (const [, { value: node, loc }] of model.nodes) {
    if (node.type !== 'input' || node.save === undefined) continue;
    const known = out.get(node.save);
    const longest = longestAnswer(node);
    out.set(node.save, {
      longest:
        known === undefined
          ? longest
          : known.longest === undefined || longest === undefined
            ? undefined
            : Math.max(known.longest, longest),
      secret: (known?.secret ?? false) || node.secret,
      savedAt: [...(known?.savedAt ?? []), { file: loc.file, path: [...loc.path, 'save'] }],
    });
  }
  return out;
}

/**
 * The longest value of every `{name}` a screen may show: the declared placeholders and the answers
 * inputs save (not secret ones); a name that is both takes the longer.
 */
export function placeholderLengths(model: MenuModel): Map<string, number> {
  const lengths = new Map([...model.placeholders].map(([k, v]) => [k, v.value]));
  for (const [name, saved] of savedAnswers(model)) {
    if (saved.secret || saved.longest === undefined) continue;
    lengths.set(name, Math.max(lengths.get(name) ?? 0, saved.longest));
  }
  return lengths;
}
