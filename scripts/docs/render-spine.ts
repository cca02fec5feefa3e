/**
 * `npm run docs:spine`: draws docs/spine.yaml into docs/spine.svg (the picture at the top of README.md).
 * `-- --check` writes nothing and exits 1 when docs/spine.svg is not what docs/spine.yaml draws.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '../lib/repo-root.js';
import { renderSpine } from './spine.js';

export const SPINE_SOURCE = path.join(REPO_ROOT, 'docs/spine.yaml');
export const SPINE_SVG = path.join(REPO_ROOT, 'docs/spine.svg');

/** Whether docs/spine.svg is what docs/spine.yaml draws. */
export async function spineIsCurrent(): Promise<boolean> {
  const svg = renderSpine(await readFile(SPINE_SOURCE, 'utf8'));
  const committed = await readFile(SPINE_SVG, 'utf8').catch(() => '');
  return svg === committed;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  if (process.argv.includes('--check')) {
    if (!(await spineIsCurrent())) {
      console.error('docs/spine.svg is not what docs/spine.yaml draws: run npm run docs:spine');
      process.exit(1);
    }
    console.log('docs/spine.svg is current');
  } else {
    await writeFile(SPINE_SVG, renderSpine(await readFile(SPINE_SOURCE, 'utf8')));
    console.log('docs/spine.svg written from docs/spine.yaml');
  }
}
