import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { listFiles } from '../lib/list-files.js';
import { REPO_ROOT, repoPath } from '../lib/repo-root.js';

/** One parsed menu file, kept with what is needed to point at a line in it. */
export interface SourceFile {
  /** Path relative to the repository root, with `/` separators (as printed in errors and headers). */
  name: string;
  /** The file as written. */
  text: string;
  doc: Document;
  lines: LineCounter;
}

/**
 * The `.yaml` files directly inside `dir` (relative to the repository root, or absolute), in code-unit
 * order of their names, so the output never depends on the file system.
 */
export async function readSourceFiles(dir: string): Promise<SourceFile[]> {
  const at = path.resolve(REPO_ROOT, dir);
  const entries = await listFiles(at, { recursive: false, suffix: '.yaml' });
  return Promise.all(
    entries.map(async (entry) => {
      const full = path.join(at, entry);
      const lines = new LineCounter();
      const text = await readFile(full, 'utf8');
      const doc = parseDocument(text, { lineCounter: lines });
      return { name: repoPath(full), text, doc, lines };
    }),
  );
}
