import { didYouMean } from './did-you-mean.js';
import type { MenuModel } from './load-model.js';
import type { MenuErrors } from './menu-errors.js';
import { bracesBalanced, placeholdersIn } from './placeholders.js';
import { allTexts } from './texts.js';

/** Every `{name}` in every text and language is a declared placeholder (so its longest value is known). */
export function checkPlaceholders(model: MenuModel, errors: MenuErrors): void {
  for (const { text, loc } of allTexts(model)) {
    for (const lang of model.languages) {
      const value = text[lang] ?? '';
      const at = { file: loc.file, path: [...loc.path, lang] };
      if (!bracesBalanced(value)) errors.atField(at, `a "{" or "}" that is not part of a {placeholder}`);
      for (const name of new Set(placeholdersIn(value))) {
        if (!model.placeholders.has(name)) {
          errors.atField(
            at,
            `placeholder {${name}} is not declared under placeholders: (with its longest length)` +
              didYouMean(name, model.placeholders.keys()),
          );
        }
      }
    }
  }
}
