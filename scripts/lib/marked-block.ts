import { readFile, writeFile } from 'node:fs/promises';
import { repoPath } from './repo-root.js';

/**
 * `text` with what lies between the lines `start` and `end` replaced by `body`; the markers stay. Throws,
 * naming `file`, when either marker is missing: a doc that lost its markers must not be rewritten blindly.
 */
export function withMarkedBlock(
  text: string,
  file: string,
  start: string,
  end: string,
  body: string,
): string {
  const a = text.indexOf(start);
  const b = text.indexOf(end, a + 1);
  if (a < 0 || b < 0) throw new Error(`${repoPath(file)} has no ${start} … ${end} block`);
  return `${text.slice(0, a + start.length)}\n${body}\n${text.slice(b)}`;
}

/** What lies between the markers (without them), or undefined when the file or a marker is missing. */
export async function readMarkedBlock(file: string, start: string, end: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const a = text.indexOf(start);
  const b = text.indexOf(end, a + 1);
  return a < 0 || b < 0
    ? undefined
    : text
        .slice(a + start.length, b)
        .replace(/^\n/, '')
        .replace(/\n$/, '');
}

/** Rewrites the block between the markers of `file` (see `withMarkedBlock`). */
export async function writeMarkedBlock(
  file: string,
  start: string,
  end: string,
  body: string,
): Promise<void> {
  const text = await readFile(file, 'utf8');
  await writeFile(file, withMarkedBlock(text, file, start, end, body));
}
