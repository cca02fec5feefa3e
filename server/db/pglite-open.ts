import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';

const run = promisify(execFile);

/**
 * PGlite's own start parameters (its `defaultStartParams`) plus smaller buffers: PostgreSQL's 128 MB of shared
 * buffers would live in the WebAssembly heap for good, for an embedded development database of a few MB.
 */
const START_PARAMS = [
  '--single',
  '-F',
  '-O',
  '-j',
  '-c',
  'search_path=public',
  '-c',
  'exit_on_error=false',
  '-c',
  'log_checkpoints=false',
  '-c',
  'max_worker_processes=0',
  '-c',
  'max_parallel_workers=0',
  '-c',
  'max_parallel_workers_per_gather=0',
  '-c',
  'io_method=sync',
  '-c',
  'max_parallel_maintenance_workers=0',
  '-c',
  'shared_buffers=8MB',
  '-c',
  'wal_buffers=1MB',
  '-c',
  'work_mem=2MB',
  '-c',
  'maintenance_work_mem=8MB',
  '-c',
  'temp_buffers=1MB',
];

/** The options every embedded database of the server is opened with. */
const PGLITE_OPTIONS: PGliteOptions = { startParams: START_PARAMS };

/**
 * Opens the embedded database in `dataDir` (in memory without one). A data directory that does not exist yet
 * is initialised first in a child process: initdb grows the WebAssembly heap to several hundred MB, which a
 * process never gives back, so the server itself only ever opens an initialised directory.
 */
export async function openPglite(dataDir: string | undefined): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir === undefined) return new PGlite(PGLITE_OPTIONS);
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await mkdir(dataDir, { recursive: true });
    const script = [
      `const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))});`,
      `const db = new PGlite(process.argv[1], JSON.parse(process.argv[2]));`,
      `await db.waitReady;`,
      `await db.close();`,
    ].join('\n');
    await run(process.execPath, [
      '--input-type=module',
      '-e',
      script,
      dataDir,
      JSON.stringify(PGLITE_OPTIONS),
    ]);
  }
  return new PGlite(dataDir, PGLITE_OPTIONS);
}
