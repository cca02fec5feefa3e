// npm run check:cycles: no import cycle between files or between folders of the project's own code.
// dpdm reads the imports (type-only and dynamic ones included, `.js` specifiers resolved to the `.ts` files);
// file cycles are dpdm's, folder cycles are worked out from the same graph by findFolderCycles.
import { parseCircular, parseDependencyTree, shortenTree } from 'dpdm';
import { REPO_ROOT } from '../lib/repo-root.js';
import { findFolderCycles, type ImportEdge } from './folder-cycles.js';

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
console.log(`folder cycles: ${folderCycles.length}`);
for (const { folder, ring, imports } of folderCycles) {
  console.log(`  ${folder || '.'}: ${[...ring, ring[0]].join(' -> ')}`);
  for (const { from, to } of imports) console.log(`    ${from} -> ${to}`);
}
if (fileCycles.length > 0 || folderCycles.length > 0) process.exitCode = 1;
