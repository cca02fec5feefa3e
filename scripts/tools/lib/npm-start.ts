import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * The node arguments of `npm start` (`exec node <args>` in package.json), after running its `prestart` (the
 * server's build, scripts/build-server.js) as npm would. For tests that start the server's own process
 * without npm in between, so a signal reaches the server itself.
 */
export async function npmStartArgs(): Promise<string[]> {
  const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string; prestart?: string };
  };
  if (pkg.scripts.prestart) await promisify(execFile)('sh', ['-c', pkg.scripts.prestart], { cwd: ROOT });
  const [command, ...args] = pkg.scripts.start.replace(/^exec /, '').split(' ');
  if (command !== 'node') throw new Error(`npm start runs ${command}, not node`);
  return args;
}
