import type { MenuModel } from './load-model.js';
import { optionName, type MenuErrors } from './menu-errors.js';
import { keyProblem, writtenKey } from './option-keys.js';

/** Option keys are numbers, unique on their screen, and none is a navigation key (0, 00, 98, *). */
export function checkOptionKeys(model: MenuModel, errors: MenuErrors): void {
  for (const [, { value: node, loc }] of model.nodes) {
    if (node.type !== 'menu') continue;
    const seen = new Map<string, number>();
    node.options.forEach((option, i) => {
      const keyLoc = { file: loc.file, path: [...loc.path, 'options', i, 'key'] };
      const key = writtenKey(keyLoc, option.key);
      const problem = keyProblem(key);
      if (problem) errors.at(keyLoc, problem);
      const first = seen.get(key);
      if (first !== undefined) errors.at(keyLoc, `key "${key}" is used twice (also ${optionName(first)})`);
      else seen.set(key, i);
    });
  }
}
