import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkDocuments, checkGenerated, generateInto, writeDocuments } from './generator.js';
import { REPO_ROOT } from './lib/repo-root.js';

/**
 * `npm run generate`: contracts/, menus/ and contracts/proto/ in, generated/ out (cleaned first); the
 * configuration schemas in, docs/configuration.md and .env.example out.
 * `npm run generate -- --check`: regenerates into a temporary directory and fails, with a diff and the
 * command to run, when the committed generated/ or a committed document differs. `--against DIR` compares with another directory.
 * `npm run generate -- --stubs`: also writes a typed, registered handler stub (server/ussd/actions/) for
 * every action the menus name that has none.
 */
async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const againstIndex = process.argv.indexOf('--against');
  const against = againstIndex > 0 ? process.argv[againstIndex + 1] : undefined;
  const committed = against === undefined ? path.join(REPO_ROOT, 'generated') : path.resolve(against);
  if (!check) {
    const files = await generateInto(committed, undefined, { writeStubs: process.argv.includes('--stubs') });
    console.log(`generated/ written (${files.length} files)`);
    console.log(`${(await writeDocuments()).join(', ')} written`);
    return;
  }
  const fresh = await mkdtemp(path.join(tmpdir(), 'generated-'));
  try {
    await generateInto(fresh);
    for (const report of [await checkGenerated(committed, fresh), await checkDocuments()]) {
      process.stdout.write(report.stdout);
      process.stderr.write(report.stderr);
      if (!report.ok) process.exitCode = 1;
    }
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
