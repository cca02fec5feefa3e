import type { Translated } from './file-schema.js';
import type { Location } from './locate.js';
import type { MenuModel } from './load-model.js';

/** One translatable text of the model and where it is written. */
export interface TextAt {
  text: Translated;
  loc: Location;
  /** The node whose screen shows it; undefined for a notice or a system text. */
  screen?: string;
}

/** Every translatable text: system texts, notices, and the titles, labels, prompts and texts of nodes. */
export function allTexts(model: MenuModel): TextAt[] {
  const out: TextAt[] = [];
  const { file, path } = model.system.loc;
  for (const [key, text] of Object.entries(model.system.value))
    out.push({ text, loc: { file, path: [...path, key] } });
  for (const [, { value, loc }] of model.notices) out.push({ text: value, loc });
  for (const [screen, { value: node, loc }] of model.nodes) {
    const at = (...p: (string | number)[]): Location => ({ file: loc.file, path: [...loc.path, ...p] });
    switch (node.type) {
      case 'menu':
        out.push({ text: node.title, loc: at('title'), screen });
        node.options.forEach((o, i) => out.push({ text: o.label, loc: at('options', i, 'label'), screen }));
        break;
      case 'info':
      case 'end':
        out.push({ text: node.text, loc: at('text'), screen });
        break;
      case 'input':
        out.push({ text: node.prompt, loc: at('prompt'), screen });
        break;
      case 'action':
        break;
    }
  }
  return out;
}
