import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository's root directory, found from this file's own place (scripts/lib/), so generators work
 * whatever the working directory. Paths written into generated files are relative to it.
 */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `file` relative to the repository root with `/` separators: how generated headers and errors name it. */
export function repoPath(file: string): string {
  return path.relative(REPO_ROOT, path.resolve(REPO_ROOT, file)).split(path.sep).join('/');
}
