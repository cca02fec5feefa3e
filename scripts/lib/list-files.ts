import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { compareCodeUnits } from '../../lib/code-unit-order.js';

/** Options of {@link listFiles}. */
export interface ListFilesOptions {
  /** Walk sub-directories too (default true). */
  recursive?: boolean;
  /** Keep only names ending so, e.g. `.yaml`. */
  suffix?: string;
}

/**
 * The files under `dir`, as `/`-separated paths relative to it, in code-unit order (so output never
 * depends on the file system's order). A directory that does not exist has none.
 */
export async function listFiles(dir: string, options: ListFilesOptions = {}): Promise<string[]> {
  const { recursive = true, suffix } = options;
  const out: string[] = [];
  const walk = async (at: string, prefix: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(at, { withFileTypes: true });
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') return;
      throw err;
    }
    for (const e of entries) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (recursive) await walk(path.join(at, e.name), rel);
      } else if (e.isFile() && (suffix === undefined || e.name.endsWith(suffix))) {
        out.push(rel);
      }
    }
  };
  await walk(dir, '');
  return out.sort(compareCodeUnits);
}
