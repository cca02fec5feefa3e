import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';

/** One parsed menu file, kept with what is needed to point at a line in it. */
export interface SourceFile {
  /** Path relative to the working directory, with `/` separators (as printed in errors and headers). */
  name: string;
  doc: Document;
  lines: LineCounter;
}

/** The `.yaml` files directly inside `dir`, sorted by name so the output never depends on the file system. */
export async function readSourceFiles(dir: string): Promise<SourceFile[]> {
  const entries = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.yaml'))
    .map((e) => e.name)
    .sort();
  return Promise.all(
    entries.map(async (entry) => {
      const full = path.join(dir, entry);
      const lines = new LineCounter();
      const doc = parseDocument(await readFile(full, 'utf8'), { lineCounter: lines });
      return { name: displayPath(full), doc, lines };
    }),
  );
}

/** A path as shown to people: relative to the working directory, `/`-separated. */
export function displayPath(file: string): string {
  return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join('/');
}
