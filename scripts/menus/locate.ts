import { isMap, isPair, isScalar, isSeq, type Node } from 'yaml';
import type { SourceFile } from './source-files.js';

/** A path into a YAML document: map keys and sequence indexes, as zod reports them. */
export type YamlPath = readonly (string | number)[];

/** Where something was written: a file and a path inside it. */
export interface Location {
  file: SourceFile;
  path: YamlPath;
}

/**
 * The 1-based line of the deepest part of `path` that exists: for a map entry the line of its key, for a
 * sequence item the line where the item starts. A path that does not exist (a missing field) points at its
 * nearest existing parent.
 */
export function lineOf(loc: Location): number {
  let node: unknown = loc.file.doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (const step of loc.path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && keyText(p.key) === String(step));
      if (!pair) break;
      offset = rangeStart(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof step === 'number') {
      const item: unknown = node.items[step];
      if (item === undefined) break;
      offset = rangeStart(item) ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return loc.file.lines.linePos(offset).line;
}

/** The node at `path`, or undefined. */
export function nodeAt(loc: Location): Node | undefined {
  const found: unknown = loc.file.doc.getIn(loc.path, true);
  return found && typeof found === 'object' ? (found as Node) : undefined;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

function rangeStart(node: unknown): number | undefined {
  if (node && typeof node === 'object' && 'range' in node) {
    const range = (node as { range?: [number, number, number] | null }).range;
    return range?.[0];
  }
  return undefined;
}
