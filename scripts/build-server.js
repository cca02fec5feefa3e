#!/usr/bin/env node
// `npm run build:server` (and npm's `prestart`): the server's TypeScript (server/, contracts/, generated/, lib/)
// compiled file by file to JavaScript under .build/<id>/, the same tree, and .build/current pointed at it.
// `npm start` and the systemd unit (deploy/systemd) run that JavaScript with plain node: no TypeScript loader in
// the running server. A loader (tsx) keeps a thread of its own with a second V8 heap and every transformed source
// in memory (about 40 MB of RSS idle), and wraps every named function in a helper call.
//
// <id> is a hash of the sources, so a build is made once per version of the code. When .build/current already
// is the build of these sources, nothing is written (about 0.1 s to hash): an install directory the service
// user cannot write starts, because the build was made once at install time by its owner. Starts side by side
// are safe: each builds into a directory of its own and renames it into place (the first rename wins, the same
// bytes either way), and `current` is swapped by a rename too. The five newest builds of other versions are
// kept (a server started from one may still load a module lazily).
//   node scripts/build-server.js           build when needed
//   node scripts/build-server.js --check   write nothing; exit 1, saying what to run, unless the build is current
// Written in JavaScript, not TypeScript, so it runs before anything is compiled.
import { createHash } from 'node:crypto';
import process from 'node:process';
import { existsSync } from 'node:fs';
import { readdir, readFile, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, '.build');
/** What the running server imports: its sources. Browser code (the simulator page) is bundled at request time. */
const SOURCE_DIRS = ['server', 'contracts', 'generated', 'lib'];
const BROWSER_ONLY = path.join('server', 'ussd', 'simulator', 'page');
/** Builds of other versions kept beside the current one. */
const KEEP_OTHER_BUILDS = 5;
/** A staging directory this old is what an interrupted build left. */
const STALE_STAGING_MS = 60 * 60 * 1000;

async function sourcesIn(dir) {
  const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true }).catch(() => []);
  const files = [];
  for (const entry of entries) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (rel !== BROWSER_ONLY) files.push(...(await sourcesIn(rel)));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(rel);
  }
  return files;
}

/** The build id of the sources as they are now: a hash of this script, esbuild's version and every source file. */
async function sourceId() {
  const files = (await Promise.all(SOURCE_DIRS.map(sourcesIn))).flat().sort();
  const hash = createHash('sha256');
  hash.update(await readFile(fileURLToPath(import.meta.url)));
  hash.update(
    JSON.parse(await readFile(path.join(ROOT, 'node_modules/esbuild/package.json'), 'utf8')).version,
  );
  for (const file of files) hash.update(`\0${file}\0`).update(await readFile(path.join(ROOT, file)));
  return { id: hash.digest('hex').slice(0, 16), files };
}

/** The id `.build/current` points at, or undefined when there is none. */
async function currentId() {
  return readlink(path.join(OUT, 'current')).catch(() => undefined);
}

/**
 * Whether `.build/current` is the build of the sources as they are now (what the systemd unit checks before it
 * starts the server, writing nothing).
 */
export async function isCurrent() {
  const { id } = await sourceId();
  return (await currentId()) === id && existsSync(path.join(OUT, id));
}

/**
 * Compiles the server when its sources changed since the last build and points `.build/current` at it; returns
 * the build's directory. Writes nothing when `current` already is that build.
 */
export async function buildServer() {
  const { id, files } = await sourceId();
  const dir = path.join(OUT, id);
  if ((await currentId()) === id && existsSync(dir)) return dir;

  if (!existsSync(dir)) {
    const staging = path.join(OUT, `.staging-${id}-${process.pid}`);
    // Loaded only when there is something to build: a current start needs no compiler.
    const { build } = await import('esbuild');
    await build({
      entryPoints: files.map((f) => path.join(ROOT, f)),
      outdir: staging,
      outbase: ROOT,
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'warning',
    });
    await rename(staging, dir).catch(async (err) => {
      // Another start renamed the same build into place first.
      await rm(staging, { recursive: true, force: true });
      if (!existsSync(dir)) throw err;
    });
  }

  const link = path.join(OUT, 'current');
  const next = path.join(OUT, `.current-${process.pid}`);
  await rm(next, { force: true });
  await symlink(id, next);
  await rename(next, link);

  // Builds of other versions: the newest few are kept (a server started from one may still load a module lazily,
  // e.g. during a rolling restart), older ones and leftovers of interrupted builds go.
  const others = [];
  for (const entry of await readdir(OUT)) {
    if (entry === id || entry === 'current' || entry.startsWith('.current-')) continue;
    const other = path.join(OUT, entry);
    const { mtimeMs } = await stat(other).catch(() => ({ mtimeMs: 0 }));
    if (entry.startsWith('.staging-')) {
      if (Date.now() - mtimeMs > STALE_STAGING_MS) await rm(other, { recursive: true, force: true });
    } else others.push({ other, mtimeMs });
  }
  others.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { other } of others.slice(KEEP_OTHER_BUILDS)) await rm(other, { recursive: true, force: true });
  return dir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--check')) {
    if (!(await isCurrent())) {
      process.stderr.write(
        `${path.join(OUT, 'current')} is not the build of the sources in ${ROOT}: run \`npm run build:server\` there as the owner of the install directory (after every update of the sources)\n`,
      );
      process.exit(1);
    }
  } else await buildServer();
}
