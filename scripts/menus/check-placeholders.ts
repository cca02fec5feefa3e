import { didYouMean } from './did-you-mean.js';
import type { MenuModel } from './load-model.js';
import { placeOf, type MenuErrors } from './menu-errors.js';
import { bracesBalanced, placeholdersIn } from './placeholders.js';
import { savedAnswers } from './saved-answers.js';
import { allTexts } from './texts.js';

/**
 * Every `{name}` in every text and language has a known longest value: a screen may show a declared
 * placeholder or an answer an input saves (`save: name`, bounded by its check); a notice or a system text
 * only a declared placeholder. A secret answer is never shown.
 */
export function checkPlaceholders(model: MenuModel, errors: MenuErrors): void {
  const saved = savedAnswers(model);
  const known = [...model.placeholders.keys(), ...saved.keys()];
  for (const { text, loc, screen } of allTexts(model)) {
    const secretShown = new Set<string>();
    for (const lang of model.languages) {
      const value = text[lang] ?? '';
      const at = { file: loc.file, path: [...loc.path, lang] };
      if (!bracesBalanced(value)) errors.atField(at, `a "{" or "}" that is not part of a {placeholder}`);
      for (const name of new Set(placeholdersIn(value))) {
        const answer = saved.get(name);
        if (answer?.secret) {
          if (secretShown.has(name)) continue;
          secretShown.add(name);
          errors.atField(
            at,
            `{${name}} is a secret answer (secret: true at ${answer.savedAt.map(placeOf).join(', ')}): it is kept only as a hash and is never shown`,
          );
        } else if (model.placeholders.has(name)) {
          continue;
        } else if (answer !== undefined && screen === undefined) {
          errors.atField(
            at,
            `{${name}} is a saved answer, which screens show; a notice or a system text shows only placeholders declared under placeholders:`,
          );
        } else if (answer !== undefined && answer.longest === undefined) {
          errors.atField(
            at,
            `{${name}} is saved by an input without validate: (${answer.savedAt.map(placeOf).join(', ')}), so its longest length is unknown; give that input validate: text and maxLength:`,
          );
        } else if (answer === undefined) {
          errors.atField(
            at,
            `placeholder {${name}} is not declared under placeholders: (with its longest length), nor saved by an input (save: ${name})` +
              didYouMean(name, known),
          );
        }
      }
    }
  }
}
