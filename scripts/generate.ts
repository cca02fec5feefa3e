import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateOpenApiDocument } from './generate-openapi.js';
import { generateProto } from './generate-proto.js';
import { generateMenus } from './menus/generate-menus.js';
import { REGENERATE_COMMAND } from './lib/header.js';

/**
 * `npm run generate`: contracts/, menus/ and contracts/proto/ in, generated/ out (cleaned first).
 * `npm run generate -- --check`: regenerates into a temporary directory and fails, with a diff and the
 * command to run, when the committed generated/ differs.
 */
async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  // `--against DIR` compares with another directory than generated/ (used by the generator's own tests).
  const againstIndex = process.argv.indexOf('--against');
  const against = againstIndex > 0 ? process.argv[againstIndex + 1] : undefined;
  const committed = path.resolve(against ?? 'generated');
  const outDir = check ? await mkdtemp(path.join(tmpdir(), 'generated-')) : committed;
  try {
    await rm(outDir, { recursive: true, force: true });
    await mkdir(outDir, { recursive: true });
    await generateOpenApiDocument(outDir);
    await generateProto(outDir);
    await generateMenus({ menusDir: path.resolve('menus'), outDir });
    if (!check) {
      console.log(`generated/ written (${(await listFiles(outDir)).length} files)`);
      return;
    }
    const differences = await compareTrees(committed, outDir);
    if (differences.length === 0) {
      console.log('generated/ is up to date.');
      return;
    }
    console.error(`generated/ is stale (${differences.length} file(s) differ):`);
    for (const d of differences) console.error(`  ${d}`);
    console.error(diffText(committed, outDir));
    console.error(`\nRun \`${REGENERATE_COMMAND}\` and commit generated/.`);
    process.exitCode = 1;
  } finally {
    if (check) await rm(outDir, { recursive: true, force: true });
  }
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    const rel = path.join(prefix, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(path.join(dir, e.name), rel)));
    else out.push(rel);
  }
  return out.sort();
}

async function compareTrees(a: string, b: string): Promise<string[]> {
  const [left, right] = await Promise.all([listFiles(a), listFiles(b)]);
  const all = [...new Set([...left, ...right])].sort();
  const out: string[] = [];
  for (const rel of all) {
    if (!left.includes(rel)) out.push(`missing from generated/: ${rel}`);
    else if (!right.includes(rel)) out.push(`not generated any more: ${rel}`);
    else if (!(await readFile(path.join(a, rel))).equals(await readFile(path.join(b, rel))))
      out.push(`changed: ${rel}`);
  }
  return out;
}

function diffText(a: string, b: string): string {
  try {
    execFileSync('diff', ['-ru', a, b], { encoding: 'utf8' });
    return '';
  } catch (err) {
    const stdout = (err as { stdout?: string }).stdout ?? '';
    const lines = stdout.split('\n');
    return lines.length > 200
      ? `${lines.slice(0, 200).join('\n')}\n… (${lines.length - 200} more lines)`
      : stdout;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
