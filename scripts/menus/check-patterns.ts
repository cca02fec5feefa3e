import { RegExpParser, type AST } from '@eslint-community/regexpp';
import type { Location } from './locate.js';
import type { MenuModel } from './load-model.js';
import type { MenuErrors } from './menu-errors.js';

/** Lengths of the strings a part of a pattern matches, in characters; undefined when it matches none. */
type Span = { min: number; max: number } | undefined;

/**
 * `pattern:` of a free-text input: it compiles as the engine compiles it (a whole-answer match with the
 * `u` flag), some answer of at most `maxLength` characters can match it, and it comes with a
 * `patternNotice:` that is declared (so it exists in every language); `validate: text` only.
 */
export function checkPatterns(model: MenuModel, errors: MenuErrors): void {
  for (const [, { value: node, loc }] of model.nodes) {
    if (node.type !== 'input') continue;
    const at = (field: string): Location => ({ file: loc.file, path: [...loc.path, field] });
    if (node.pattern === undefined) {
      if (node.patternNotice !== undefined)
        errors.at(
          at('patternNotice'),
          'patternNotice is shown when an answer does not match pattern:; add pattern:',
        );
      continue;
    }
    if (node.validate !== 'text') {
      errors.at(at('pattern'), 'pattern is for validate: text (the other checks have their own rules)');
      continue;
    }
    if (node.patternNotice === undefined)
      errors.at(at('pattern'), 'pattern needs patternNotice: the notice shown when an answer does not match');
    else if (!model.notices.has(node.patternNotice) && !model.brokenNotices.has(node.patternNotice))
      errors.at(
        at('patternNotice'),
        `notice "${node.patternNotice}" is not declared under notices: (in every language)`,
      );
    const problem = patternProblem(node.pattern, node.maxLength);
    if (problem !== undefined) errors.at(at('pattern'), problem);
  }
}

/** Why a pattern cannot be used with answers of at most `maxLength` characters, or undefined. */
export function patternProblem(pattern: string, maxLength: number | undefined): string | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch (err) {
    const why = (err as Error).message.replace(/^Invalid regular expression: \/.*\/u?: /s, '');
    return `pattern does not compile as a regular expression: ${why}`;
  }
  let ast: AST.Pattern;
  try {
    ast = new RegExpParser({ ecmaVersion: 2024 }).parsePattern(pattern, 0, pattern.length, { unicode: true });
  } catch {
    return undefined; // compiled by the engine, so it can match; only its lengths are unknown
  }
  const span = spanOf(ast);
  if (span === undefined) return 'pattern can never match any answer (an empty [] or the like)';
  if (span.max === 0) return 'pattern matches only an empty answer, and an empty answer is refused';
  if (maxLength !== undefined && span.min > maxLength)
    return (
      `no answer of at most ${maxLength} characters (maxLength) can match pattern: ` +
      `the shortest answer it matches is ${span.min} characters`
    );
  return undefined;
}

function spanOf(node: AST.Node): Span {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return either(node.alternatives);
    case 'Alternative': {
      let min = 0;
      let max = 0;
      for (const element of node.elements) {
        const span = spanOf(element);
        if (span === undefined) return undefined;
        min += span.min;
        max += span.max;
      }
      return { min, max };
    }
    case 'Quantifier': {
      const span = spanOf(node.element);
      if (span === undefined) return node.min === 0 ? { min: 0, max: 0 } : undefined;
      return { min: span.min * node.min, max: span.max === 0 ? 0 : span.max * node.max };
    }
    case 'CharacterClass':
      return !node.negate && node.elements.length === 0 ? undefined : { min: 1, max: 1 };
    case 'Assertion':
      return { min: 0, max: 0 };
    case 'Backreference':
      return { min: 0, max: Infinity };
    case 'Character':
    case 'CharacterClassRange':
    case 'CharacterSet':
    case 'ClassIntersection':
    case 'ClassStringDisjunction':
    case 'ClassSubtraction':
    case 'ExpressionCharacterClass':
    case 'StringAlternative':
      return { min: 1, max: 1 };
    case 'Flags':
    case 'ModifierFlags':
    case 'Modifiers':
    case 'RegExpLiteral':
      return { min: 0, max: 0 };
  }
}

function either(alternatives: readonly AST.Alternative[]): Span {
  const spans = alternatives.map(spanOf).filter((s) => s !== undefined);
  if (spans.length === 0) return undefined;
  return { min: Math.min(...spans.map((s) => s.min)), max: Math.max(...spans.map((s) => s.max)) };
}
