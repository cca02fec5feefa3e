import { describe, expect, it } from 'vitest';
import { findFolderCycles } from '../../scripts/cycles/folder-cycles.js';

// npm run check:cycles' folder level: at every folder, its sub-folders and its own files are the nodes.

const edge = (from: string, to: string) => ({ from, to });

describe('findFolderCycles', () => {
  it('finds two sibling folders importing each other, with the import behind each step', () => {
    expect(
      findFolderCycles([
        edge('server/oracle/http/router.ts', 'server/oracle/limits/turn-limits.ts'),
        edge('server/oracle/limits/turn-limits.ts', 'server/oracle/http/oracle-error.ts'),
        edge('server/oracle/limits/turn-limits.ts', 'server/logger.ts'),
      ]),
    ).toEqual([
      {
        folder: 'server/oracle',
        ring: ['http/', 'limits/'],
        imports: [
          edge('server/oracle/http/router.ts', 'server/oracle/limits/turn-limits.ts'),
          edge('server/oracle/limits/turn-limits.ts', 'server/oracle/http/oracle-error.ts'),
        ],
        tangle: ['http/', 'limits/'],
      },
    ]);
  });

  it('sees no cycle when a folder file imports a sub-folder that imports another file of the folder', () => {
    expect(
      findFolderCycles([
        edge('server/oracle/part.ts', 'server/oracle/http/router.ts'),
        edge('server/oracle/http/router.ts', 'server/oracle/identity.ts'),
      ]),
    ).toEqual([]);
  });

  it('finds a cycle through a file of the folder, and leaves a ring of files alone to the file check', () => {
    const cycles = findFolderCycles([
      edge('server/chain/router.ts', 'server/config.ts'),
      edge('server/config.ts', 'server/chain/config.ts'),
      edge('server/a.ts', 'server/b.ts'),
      edge('server/b.ts', 'server/a.ts'),
    ]);
    expect(cycles.map((c) => [c.folder, c.ring])).toEqual([['server', ['chain/', 'config.ts']]]);
  });
});
