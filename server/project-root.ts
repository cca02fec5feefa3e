import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The checkout's root: the nearest directory above this module with a package.json. The same from the
 * TypeScript sources (server/) and from the JavaScript `npm start` runs (.build/<id>/server/, see
 * scripts/build-server.js), so files that are not modules (fixtures, the generated OpenAPI document, the
 * simulator page's sources) are read from one place. Worked out on first use, not at module load: a test
 * environment such as jsdom may give modules a URL that is not a file: one (then the working directory).
 */
export function projectRoot(): string {
  root ??= findRoot();
  return root;
}

function findRoot(): string {
  const here = import.meta.url.startsWith('file:') ? path.dirname(fileURLToPath(import.meta.url)) : undefined;
  if (here === undefined) return process.cwd();
  for (let dir = here; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(here, '..');
  }
}
