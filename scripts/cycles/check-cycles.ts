// npm run check:cycles: no import cycle between files or between folders of the project's own code.
// dpdm reads the imports (type-only and dynamic ones included, `.js` specifiers resolved to the `.ts` files);
// file cycles are dpdm's, folder cycles are worked out from the same graph by findFolderCycles.
import { parseCircular, parseDependencyTree, shortenTree } from 'dpdm';
import { REPO_ROOT } from '../lib/repo-root.js';
import { findFolderCycles, type FolderCycle, type ImportEdge } from './folder-cycles.js';
import { KNOWN_TANGLES } from './known-tangles.js';

/** The code checked: everything that ships or generates, not the tests. */
export const CHECKED = [
  'lib/**/*.ts',
  'contracts/**/*.ts',
  'generated/**/*.ts',
  'server/**/*.ts',
  'sdk/src/**/*.{ts,tsx}',
  'scripts/**/*.ts',
];

const tree = shortenTree(
  REPO_ROOT,
  await parseDependencyTree(CHECKED, {
    cwd: REPO_ROOT,
    context: REPO_ROOT,
    transform: false,
    skipDynamicImports: false,
  }),
);
const files = Object.entries(tree).filter(
  ([file, deps]) => deps !== null && !file.startsWith('node_modules/'),
);
const edges: ImportEdge[] = files.flatMap(([from, deps]) =>
  (deps ?? [])
    .filter((dep) => dep.id !== null && tree[dep.id] !== null && tree[dep.id] !== undefined)
    .map((dep) => ({ from, to: dep.id! })),
);

const fileCycles = parseCircular(tree);
const folderCycles = findFolderCycles(edges);

console.log(
  `check:cycles: ${files.length} files, ${edges.length} imports (dpdm; type-only and dynamic imports count)`,
);
console.log(`file cycles: ${fileCycles.length}`);
for (const cycle of fileCycles) console.log(`  ${[...cycle, cycle[0]].join(' -> ')}`);
const known = (cycle: FolderCycle): boolean =>
  KNOWN_TANGLES.some(
    (k) => k.folder === cycle.folder && cycle.tangle.every((entry) => k.entries.includes(entry)),
  );
const report = (title: string, cycles: FolderCycle[]): void => {
  console.log(`${title}: ${cycles.length}`);
  for (const { folder, ring, imports } of cycles) {
    console.log(`  ${folder || '.'}: ${[...ring, ring[0]].join(' -> ')}`);
    for (const { from, to } of imports) console.log(`    ${from} -> ${to}`);
  }
};
const unknown = folderCycles.filter((cycle) => !known(cycle));
report('folder cycles', unknown);
report('known folder cycles, still to break (scripts/cycles/known-tangles.ts)', folderCycles.filter(known));
if (fileCycles.length > 0 || unknown.length > 0) process.exitCode = 1;
