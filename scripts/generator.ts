import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONFIG_DOCUMENTS, type GeneratedDocument } from './config-docs/generate-config-docs.js';
import { openApiStep } from './generate-openapi.js';
import { protoStep } from './generate-proto.js';
import { REGENERATE_COMMAND } from './lib/header.js';
import { listFiles } from './lib/list-files.js';
import { REPO_ROOT } from './lib/repo-root.js';
import type { GeneratorStep } from './lib/step.js';
import { menusStep } from './menus/generate-menus.js';

/** Every step of `npm run generate`, in the order they run. */
export const GENERATOR_STEPS: readonly GeneratorStep[] = [openApiStep, protoStep, menusStep];

/** Files `npm run generate` writes outside generated/: the configuration reference and .env.example. */
export const GENERATED_DOCUMENTS: readonly GeneratedDocument[] = CONFIG_DOCUMENTS;

/** Writes every generated document under `root`; returns their paths. */
export async function writeDocuments(root = REPO_ROOT): Promise<string[]> {
  for (const doc of GENERATED_DOCUMENTS) {
    await mkdir(path.dirname(path.join(root, doc.path)), { recursive: true });
    await writeFile(path.join(root, doc.path), doc.render());
  }
  return GENERATED_DOCUMENTS.map((d) => d.path);
}

/** Compares the committed documents under `root` with what their sources render now. */
export async function checkDocuments(root = REPO_ROOT): Promise<CheckReport> {
  const fresh = await mkdtemp(path.join(tmpdir(), 'documents-'));
  try {
    const stale: string[] = [];
    const diffs: string[] = [];
    for (const doc of GENERATED_DOCUMENTS) {
      const committed = path.join(root, doc.path);
      const text = doc.render();
      if ((await readFile(committed, 'utf8').catch(() => undefined)) === text) continue;
      stale.push(doc.path);
      const rendered = path.join(fresh, doc.path.replaceAll('/', '_'));
      await writeFile(rendered, text);
      diffs.push(diffText(committed, rendered));
    }
    const names = GENERATED_DOCUMENTS.map((d) => d.path).join(', ');
    if (stale.length === 0) return { ok: true, stdout: `${names} are up to date.\n`, stderr: '' };
    const lines = [
      `${stale.join(', ')} ${stale.length === 1 ? 'is' : 'are'} stale:`,
      ...diffs,
      `\nRun \`${REGENERATE_COMMAND}\` and commit ${names}.`,
    ];
    return { ok: false, stdout: '', stderr: `${lines.join('\n')}\n` };
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
}

/** Cleans `outDir` and runs every step into it; returns the files written. */
export async function generateInto(
  outDir: string,
  root = REPO_ROOT,
  options: { writeStubs?: boolean } = {},
): Promise<string[]> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  for (const step of GENERATOR_STEPS)
    await step.run({ root, outDir, writeStubs: options.writeStubs === true });
  return listFiles(outDir);
}

/** What `--check` prints and whether it passed. */
export interface CheckReport {
  ok: boolean;
  /** For stdout when it passed. */
  stdout: string;
  /** For stderr when it failed: the files that differ, a diff and the command to run. */
  stderr: string;
}

/** Compares the committed tree with a fresh generation of it, as `npm run generate -- --check` reports. */
export async function checkGenerated(committed: string, fresh: string): Promise<CheckReport> {
  const differences = await compareTrees(committed, fresh);
  if (differences.length === 0) return { ok: true, stdout: 'generated/ is up to date.\n', stderr: '' };
  const lines = [
    `generated/ is stale (${differences.length} file(s) differ):`,
    ...differences.map((d) => `  ${d}`),
    diffText(committed, fresh),
    `\nRun \`${REGENERATE_COMMAND}\` and commit generated/.`,
  ];
  return { ok: false, stdout: '', stderr: `${lines.join('\n')}\n` };
}

/** One line per file that is missing, left over or changed, in code-unit order of the paths. */
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
    execFileSync('diff', ['-ruN', a, b], { encoding: 'utf8' });
    return '';
  } catch (err) {
    const stdout = (err as { stdout?: string }).stdout ?? '';
    const lines = stdout.split('\n');
    return lines.length > 200
      ? `${lines.slice(0, 200).join('\n')}\n… (${lines.length - 200} more lines)`
      : stdout;
  }
}
