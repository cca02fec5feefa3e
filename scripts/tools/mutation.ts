import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../lib/repo-root.js';

const USAGE = `Usage: npm run test:mutation -- [module …] [--concurrency N] [--no-write] [--list]

Mutation testing (Stryker, stryker.config.json) of the modules where a silent bug costs most, one module at a
time: each module's files are mutated and only that module's tests run (each mutant runs only the tests that
reached it). The HTML report of a module lands in reports/mutation/<module>/index.html (ignored), and its
score is written into README.md ("Mutation testing"), keeping the rows of the modules not run this time.
Without a module name every module runs (slow: hours on 2 cores). --list prints the modules.`;

/** A module under mutation testing: the files mutated, and the tests that are its specification. */
interface MutationModule {
  name: string;
  mutate: string[];
  tests: string[];
}

const MODULES: readonly MutationModule[] = [
  {
    name: 'ussd-session',
    mutate: ['server/ussd/session/**/*.ts', 'server/with-timeout.ts'],
    tests: [
      'test/platform/with-timeout.test.ts',
      'test/ussd/session-stores.test.ts',
      'test/ussd/session-flow.test.ts',
      'test/ussd/session-semantics.test.ts',
      'test/ussd/committed-changes.test.ts',
      'test/ussd/outage.test.ts',
      'test/ussd/expiry.test.ts',
      'test/ussd/keyed-mutex.test.ts',
    ],
  },
  {
    name: 'oracle-auth',
    mutate: ['server/oracle/auth/**/*.ts'],
    tests: [
      'test/oracle/auth.test.ts',
      'test/oracle/auth-units.test.ts',
      'test/oracle/token-cache-expiry.test.ts',
      'test/oracle/native-ed25519.test.ts',
      'test/security/tokens.test.ts',
    ],
  },
  {
    name: 'oracle-runs',
    mutate: ['server/oracle/runs/**/*.ts'],
    tests: [
      'test/oracle/run-event-log.test.ts',
      'test/oracle/control-bus.test.ts',
      'test/oracle/run-follower.test.ts',
      'test/oracle/run-recovery.test.ts',
      'test/oracle/model-failure.test.ts',
      'test/oracle/sessions.test.ts',
      'test/oracle/orphan-abort.test.ts',
      'test/oracle/redis-outage.test.ts',
      'test/oracle/run-database-outage.test.ts',
      'test/oracle/runs.test.ts',
      'test/oracle/abort-order.test.ts',
      'test/oracle/durable.test.ts',
      'test/oracle/resume-from-log.test.ts',
      'test/oracle/run-manager.test.ts',
      'test/oracle/abort-handshake.test.ts',
    ],
  },
  {
    name: 'oracle-http',
    mutate: ['server/oracle/http/**/*.ts'],
    tests: [
      'test/oracle/event-stream.test.ts',
      'test/oracle/route-answers.test.ts',
      'test/oracle/model-failure.test.ts',
      'test/oracle/auth.test.ts',
      'test/oracle/models.test.ts',
      'test/security/rooms.test.ts',
      'test/security/regressions.test.ts',
      'test/platform/drain.test.ts',
      'test/oracle/error-handler.test.ts',
      'test/oracle/stream.test.ts',
      'test/oracle/sessions.test.ts',
      'test/oracle/runs.test.ts',
      'test/oracle/abort-order.test.ts',
      'test/security/limits.test.ts',
      'test/security/wrong-user.test.ts',
    ],
  },
  {
    name: 'plugin-user-preferences',
    mutate: [
      'server/oracle/plugins/user-preferences/**/*.ts',
      'server/db/migrations/0004-user-preferences.ts',
    ],
    tests: [
      'test/oracle/user-preferences.test.ts',
      'test/oracle/preferences-instructions.test.ts',
      'test/oracle/plugins-table.test.ts',
    ],
  },
  {
    name: 'plugin-credits',
    mutate: ['server/oracle/plugins/credits/**/*.ts', 'server/db/migrations/0006-credits.ts'],
    tests: [
      'test/oracle/verify-payment.test.ts',
      'test/oracle/credits-ledger.test.ts',
      'test/oracle/memory-credits.test.ts',
      'test/security/payments.test.ts',
      'test/security/payments-chain-outage.test.ts',
    ],
  },
  {
    name: 'sdk-chat',
    mutate: ['sdk/src/chat/**/*.ts'],
    tests: ['sdk/test/unit/**/*.test.ts', 'sdk/test/consumer/**/*.test.tsx'],
  },
  {
    name: 'ussd-engine',
    mutate: ['server/ussd/engine/**/*.ts'],
    tests: [
      'test/ussd/engine*.test.ts',
      'test/menus/pagination.test.ts',
      'test/ussd/flows.test.ts',
      'test/ussd/spec-replies.test.ts',
      'test/ussd/pin-secrecy.test.ts',
    ],
  },
];

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    concurrency: { type: 'string', default: '2' },
    'no-write': { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
if (opts.list) {
  for (const m of MODULES) console.log(`${m.name}\t${m.mutate.join(', ')}`);
  process.exit(0);
}
const unknown = positionals.filter((name) => !MODULES.some((m) => m.name === name));
if (unknown.length > 0) {
  console.error(`Unknown module(s): ${unknown.join(', ')}. Known: ${MODULES.map((m) => m.name).join(', ')}`);
  process.exit(2);
}
const selected = positionals.length > 0 ? MODULES.filter((m) => positionals.includes(m.name)) : MODULES;

/** The counts of a Stryker JSON report (mutation-testing-report-schema). */
interface Score {
  mutants: number;
  killed: number;
  survived: number;
  noCoverage: number;
  /** Killed (including timeouts) over killed + survived + no coverage, in percent. */
  score: number;
}

async function scoreOf(reportFile: string): Promise<Score> {
  const report = JSON.parse(await readFile(reportFile, 'utf8')) as {
    files: Record<string, { mutants: { status: string }[] }>;
  };
  const all = Object.values(report.files).flatMap((f) => f.mutants);
  const count = (...statuses: string[]): number => all.filter((m) => statuses.includes(m.status)).length;
  const killed = count('Killed', 'Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const valid = killed + survived + noCoverage;
  return {
    mutants: valid,
    killed,
    survived,
    noCoverage,
    score: valid === 0 ? 100 : (100 * killed) / valid,
  };
}

async function runModule(m: MutationModule): Promise<Score> {
  const dir = path.join('reports', 'mutation', m.name);
  await mkdir(path.join(REPO_ROOT, dir), { recursive: true });
  // A config of the module's own: stryker.config.json with the module's files, tests and report paths.
  const base = JSON.parse(await readFile(path.join(REPO_ROOT, 'stryker.config.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const config = path.join(dir, 'stryker.config.json');
  const own = {
    ...base,
    $schema: undefined,
    mutate: m.mutate,
    testFiles: m.tests,
    concurrency: Number(opts.concurrency),
    htmlReporter: { fileName: `${dir}/index.html` },
    jsonReporter: { fileName: `${dir}/mutation.json` },
  };
  await writeFile(path.join(REPO_ROOT, config), `${JSON.stringify(own, null, 2)}\n`);
  const stryker = path.join(REPO_ROOT, 'node_modules/.bin/stryker');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(stryker, ['run', config], { cwd: REPO_ROOT, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  if (code !== 0) throw new Error(`stryker exited with ${code} for ${m.name}`);
  return scoreOf(path.join(REPO_ROOT, dir, 'mutation.json'));
}

const START = '<!-- mutation-scores:start (written by npm run test:mutation; do not edit) -->';
const END = '<!-- mutation-scores:end -->';
const HEADER = [
  '| Module | Files | Mutants | Killed | Survived | No coverage | Score | Run on |',
  '|---|---|---|---:|---:|---:|---:|---|',
];

function row(m: MutationModule, s: Score, date: string): string {
  return (
    `| ${m.name} | ${m.mutate.map((g) => `\`${g}\``).join(', ')} | ${s.mutants} | ${s.killed} | ${s.survived} | ` +
    `${s.noCoverage} | **${s.score.toFixed(1)} %** | ${date} |`
  );
}

async function writeReadme(scores: Map<string, string>): Promise<void> {
  const readme = path.join(REPO_ROOT, 'README.md');
  const text = await readFile(readme, 'utf8');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`README.md has no ${START} … ${END} block`);
  // The rows already there, by module: a module not run this time keeps its last score.
  const previous = new Map<string, string>();
  for (const line of text.slice(from + START.length, to).split('\n')) {
    const name = /^\| ([a-z0-9-]+) \|/.exec(line)?.[1];
    if (name && MODULES.some((m) => m.name === name)) previous.set(name, line);
  }
  const rows = MODULES.map(
    (m) =>
      scores.get(m.name) ??
      previous.get(m.name) ??
      `| ${m.name} | ${m.mutate.map((g) => `\`${g}\``).join(', ')} | – | – | – | – | not run yet | – |`,
  );
  await writeFile(
    readme,
    `${text.slice(0, from + START.length)}\n${[...HEADER, ...rows].join('\n')}\n${text.slice(to)}`,
  );
}

const date = new Date().toISOString().slice(0, 10);
const scores = new Map<string, string>();
let failed = false;
for (const m of selected) {
  try {
    const s = await runModule(m);
    console.log(
      `${m.name}: ${s.score.toFixed(1)} % (${s.killed} killed, ${s.survived} survived, ${s.noCoverage} no coverage)`,
    );
    scores.set(m.name, row(m, s, date));
  } catch (err) {
    console.error(String(err));
    failed = true;
  }
  // Written after each module: a long run stopped half-way keeps what it measured.
  if (!opts['no-write'] && scores.size > 0) await writeReadme(scores);
}
process.exit(failed ? 1 : 0);
