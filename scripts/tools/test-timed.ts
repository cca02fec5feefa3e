import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeMarkedBlock } from '../lib/marked-block.js';
import { REPO_ROOT } from '../lib/repo-root.js';

const USAGE = `Usage: npm run test:timed -- [--runs N] [--no-write]

Runs the test suite (vitest run) N times (default 1) and writes the median wall-clock time, with the
column (embedded defaults, or PostgreSQL + Redis when DATABASE_URL and REDIS_URL are set), the machine's
cores and the test counts, into docs/testing.md between the markers of that column. Stops at the first failing
run and writes nothing then. --no-write prints the line only.`;

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    'no-write': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
const runs = Number(opts.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(USAGE);
  process.exit(2);
}

const production = Boolean(process.env['DATABASE_URL'] && process.env['REDIS_URL']);
const column = production ? 'postgres-redis' : 'embedded';
const columnName = production ? 'PostgreSQL and Redis (DATABASE_URL, REDIS_URL)' : 'embedded defaults';

interface Run {
  seconds: number;
  files: number;
  passed: number;
  skipped: number;
}

/** The arguments of `vitest` in package.json's `test` script (e.g. `run --project repo --project sdk`). */
async function npmTestArgs(): Promise<string[]> {
  const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [command, ...args] = (pkg.scripts['test'] ?? '').split(/\s+/);
  if (command !== 'vitest') throw new Error(`npm test is not a plain vitest command: ${pkg.scripts['test']}`);
  return args;
}

/** One `vitest run`, its output on this terminal, its counts from the JSON reporter. */
async function runOnce(): Promise<Run> {
  const dir = await mkdtemp(path.join(tmpdir(), 'test-timed-'));
  const report = path.join(dir, 'report.json');
  try {
    const started = performance.now();
    const vitest = path.join(REPO_ROOT, 'node_modules/.bin/vitest');
    // Exactly what `npm test` runs: the arguments of its script in package.json (type tests are
    // `npm run test:types`).
    const args = [
      ...(await npmTestArgs()),
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(vitest, args, { cwd: REPO_ROOT, stdio: 'inherit' });
      child.on('error', reject);
      child.on('exit', resolve);
    });
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`vitest exited with ${code}; nothing written`);
    const json = JSON.parse(await readFile(report, 'utf8')) as {
      numTotalTestSuites: number;
      testResults: unknown[];
      numPassedTests: number;
      numPendingTests: number;
      numTodoTests: number;
    };
    return {
      seconds,
      files: json.testResults.length,
      passed: json.numPassedTests,
      skipped: json.numPendingTests + json.numTodoTests,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const results: Run[] = [];
for (let i = 0; i < runs; i++) results.push(await runOnce());
const sorted = results.map((r) => r.seconds).sort((a, b) => a - b);
const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
const last = results.at(-1) as Run;
const date = new Date().toISOString().slice(0, 10);
const each =
  runs > 1 ? ` (median of ${runs} runs: ${results.map((r) => r.seconds.toFixed(0)).join(', ')} s)` : '';
const line =
  `\`npm test\` on ${columnName}: **${median.toFixed(0)} s**${each}; ${last.files} files, ${last.passed} tests ` +
  `passed, ${last.skipped} skipped. Measured by \`npm run test:timed\` on ${date}, ${availableParallelism()} ` +
  `cores, Node ${process.version}.`;
console.log(`\n${line}`);

if (!opts['no-write']) {
  const doc = path.join(REPO_ROOT, 'docs/testing.md');
  await writeMarkedBlock(doc, `<!-- test-timing:${column} -->`, `<!-- /test-timing:${column} -->`, line);
  console.log(`docs/testing.md updated (${column}).`);
}
