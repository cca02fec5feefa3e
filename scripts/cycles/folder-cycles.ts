/** One import of the project: `from` imports `to` (both repository-relative paths with `/`). */
export interface ImportEdge {
  from: string;
  to: string;
}

/** A cycle among the entries of one folder, with one import that makes each step of it. */
export interface FolderCycle {
  /** The folder whose entries import each other in a ring, e.g. `server/oracle`. */
  folder: string;
  /** The entries of the ring in order (a sub-folder as `http/`, a file as `part.ts`); the last imports the first. */
  ring: string[];
  /** One import behind each step of the ring, in the same order. */
  imports: ImportEdge[];
  /** Every entry of the tangle the ring belongs to (its strongly connected group), sorted. */
  tangle: string[];
}

/**
 * Cycles between folders, at every level of the tree. Inside a folder, each sub-folder (with everything under
 * it) and each file directly in it is one node; an import between files under two different nodes is an edge
 * between those nodes. A ring of nodes with at least one sub-folder in it is a folder cycle: `http/` imports
 * `limits/` and `limits/` imports `http/`, or a file of the folder that imports a sub-folder which imports it
 * back. A ring of files alone is a file cycle, which the file-level check reports.
 *
 * Each tangle (a strongly connected group of nodes) is reported as the shortest rings (breadth-first) that
 * together pass through every node of it, each step with one import that makes it: the imports to cut.
 */
export function findFolderCycles(edges: readonly ImportEdge[]): FolderCycle[] {
  const byFolder = new Map<string, Map<string, Map<string, ImportEdge>>>();
  for (const edge of edges) {
    const from = edge.from.split('/');
    const to = edge.to.split('/');
    let common = 0;
    while (common < from.length - 1 && common < to.length - 1 && from[common] === to[common]) common += 1;
    const folder = from.slice(0, common).join('/');
    const a = entryName(from, common);
    const b = entryName(to, common);
    if (a === b) continue;
    const graph = byFolder.get(folder) ?? new Map<string, Map<string, ImportEdge>>();
    byFolder.set(folder, graph);
    const out = graph.get(a) ?? new Map<string, ImportEdge>();
    graph.set(a, out);
    if (!out.has(b)) out.set(b, edge);
  }
  const cycles: FolderCycle[] = [];
  for (const folder of [...byFolder.keys()].sort()) {
    const graph = byFolder.get(folder)!;
    for (const group of stronglyConnected(graph)) {
      if (group.length < 2 || !group.some((node) => node.endsWith('/'))) continue;
      const covered = new Set<string>();
      for (const node of group) {
        if (covered.has(node)) continue;
        const ring = shortestRing(graph, group, node);
        for (const member of ring) covered.add(member);
        cycles.push({
          folder,
          ring,
          imports: ring.map((from, i) => graph.get(from)!.get(ring[(i + 1) % ring.length]!)!),
          tangle: group,
        });
      }
    }
  }
  return cycles;
}

/** The entry of a folder that a path falls under at `depth`: `name/` for a sub-folder, the file name for a file. */
function entryName(parts: readonly string[], depth: number): string {
  return depth === parts.length - 1 ? parts[depth]! : `${parts[depth]}/`;
}

/** Tarjan's strongly connected components, each sorted, in a stable order. */
function stronglyConnected(graph: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    groups.push(group.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest ring through `start`, staying inside its group. */
function shortestRing(
  graph: ReadonlyMap<string, ReadonlyMap<string, unknown>>,
  group: readonly string[],
  start: string,
): string[] {
  const inGroup = new Set(group);
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i += 1) {
    const node = queue[i]!;
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (!inGroup.has(next)) continue;
      if (next === start) {
        const ring = [node];
        while (ring[0] !== start) ring.unshift(previous.get(ring[0]!)!);
        return ring;
      }
      if (previous.has(next)) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  return [...group];
}
