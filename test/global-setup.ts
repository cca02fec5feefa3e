import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A tar of a freshly initialised PGlite data directory (see {@link pgliteTemplate}). */
    pgliteTemplate: string;
    /** The same data directory on disk, copied (not loaded) for each database a child process opens. */
    pgliteTemplateDir: string;
  }
}

/**
 * Once per run, before any test file:
 * - When DATABASE_URL or REDIS_URL is set (CI), the servers must answer: a down server fails the run here,
 *   with a clear message, instead of tests silently falling back to embedded stores.
 * - The embedded database's template (below) is made if this install does not have it yet.
 */
export default async function setup(project: TestProject): Promise<void> {
  const databaseUrl = process.env['DATABASE_URL'];
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('select 1');
    } catch (err) {
      throw new Error(`DATABASE_URL is set but PostgreSQL does not answer (${String(err)})`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  const redisUrl = process.env['REDIS_URL'];
  if (redisUrl) {
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000 });
    try {
      await redis.connect();
      await redis.ping();
    } catch (err) {
      throw new Error(`REDIS_URL is set but Redis does not answer (${String(err)})`);
    } finally {
      redis.disconnect();
    }
  }
  const template = await pgliteTemplate();
  project.provide('pgliteTemplate', template);
  project.provide('pgliteTemplateDir', await pgliteTemplateDir(template));
}

/**
 * Starting PGlite on an empty directory runs initdb, 2 to 5 s of CPU here; loading an initialised
 * directory takes about half a second. So the suite makes one initialised, empty directory per PGlite
 * version and keeps its tar under node_modules/.cache; every test database starts from it (test/helpers/db.ts).
 * Migrations still run on each, as on a fresh machine.
 */
async function pgliteTemplate(): Promise<string> {
  const pkg = JSON.parse(await readFile('node_modules/@electric-sql/pglite/package.json', 'utf8')) as {
    version: string;
  };
  const file = path.resolve('node_modules/.cache/open-oracles-tests', `pglite-${pkg.version}.tar`);
  if (
    await stat(file).then(
      (s) => s.size > 0,
      () => false,
    )
  )
    return file;
  const instance = new PGlite();
  await instance.waitReady;
  const dump = await instance.dumpDataDir('none');
  await instance.close();
  await mkdir(path.dirname(file), { recursive: true });
  // Another run may be writing it too: each writes its own file, and the rename is atomic.
  const temp = `${file}.${process.pid}`;
  await writeFile(temp, Buffer.from(await dump.arrayBuffer()));
  await rename(temp, file);
  return file;
}

/**
 * The template unpacked on disk, once per PGlite version: a database on disk for a child process (a tool,
 * a server started as a user starts it) is a native copy of this directory (milliseconds) instead of the
 * tar loaded through PGlite's file system (one to two seconds of CPU each).
 */
async function pgliteTemplateDir(template: string): Promise<string> {
  const dir = template.replace(/\.tar$/, '-dir');
  if (
    await stat(path.join(dir, 'PG_VERSION')).then(
      () => true,
      () => false,
    )
  )
    return dir;
  const temp = await mkdtemp(`${dir}.`);
  const instance = new PGlite(temp, { loadDataDir: new Blob([await readFile(template)]) });
  await instance.waitReady;
  await instance.close();
  // Another run may have made it meanwhile: keep theirs.
  await rename(temp, dir).catch(() => rm(temp, { recursive: true, force: true }));
  return dir;
}
