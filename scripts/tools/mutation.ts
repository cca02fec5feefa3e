import { spawn } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listFiles } from '../lib/list-files.js';
import { REPO_ROOT } from '../lib/repo-root.js';

const USAGE = `Usage: npm run test:mutation -- [module …] [--concurrency N] [--no-write] [--list] [--rewrite]

Mutation testing (Stryker, stryker.config.json) of the modules where a silent bug costs most, one module at a
time: each module's files are mutated and only that module's tests run (each mutant runs only the tests that
reached it). The HTML report of a module lands in reports/mutation/<module>/index.html (ignored). Its score is
written into docs/testing.md ("Mutation testing") and its surviving mutants into docs/mutation-survivors.md,
keeping what the modules not run this time had. Without a module name every module runs (slow: hours on 2
cores). --list runs nothing: it prints each module's files and the test files its test globs find, and exits 1
when a glob finds none (a test moved or renamed). --rewrite runs nothing: it writes both docs again from the JSON
reports already in reports/mutation/ (the named modules, or all that have one).`;

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
      'test/ussd/session/session-stores.test.ts',
      'test/ussd/session/session-flow.test.ts',
      'test/ussd/session/session-semantics.test.ts',
      'test/ussd/session/committed-changes.test.ts',
      'test/ussd/scenarios/outage.test.ts',
      'test/ussd/session/expiry.test.ts',
      'test/ussd/session/keyed-mutex.test.ts',
    ],
  },
  {
    name: 'oracle-auth',
    mutate: ['server/oracle/auth/**/*.ts'],
    tests: [
      'test/oracle/auth/capability-tokens-http.test.ts',
      'test/oracle/auth/capability-tokens.test.ts',
      'test/oracle/auth/token-cache-expiry.test.ts',
      'test/oracle/auth/native-ed25519.test.ts',
      'test/security/tokens.test.ts',
    ],
  },
  {
    name: 'oracle-runs',
    mutate: ['server/oracle/runs/**/*.ts'],
    tests: [
      'test/oracle/runs/event-log.test.ts',
      'test/oracle/runs/control-bus.test.ts',
      'test/oracle/runs/run-follower.test.ts',
      'test/oracle/runs/run-recovery.test.ts',
      'test/oracle/runtime/model-failure.test.ts',
      'test/oracle/http/sessions.test.ts',
      'test/oracle/runs/orphan-abort.test.ts',
      'test/oracle/scenarios/redis-outage.test.ts',
      'test/oracle/runs/run-manager-database-outage.test.ts',
      'test/oracle/runs/abort-and-one-stream.test.ts',
      'test/oracle/runs/abort-order.test.ts',
      'test/oracle/scenarios/durable-runs.test.ts',
      'test/oracle/runs/resume-from-log.test.ts',
      'test/oracle/runs/run-manager.test.ts',
      'test/oracle/runs/abort-handshake.test.ts',
      'test/oracle/runs/store-retry.test.ts',
      'test/oracle/runs/run-leases.test.ts',
    ],
  },
  {
    name: 'oracle-http',
    mutate: ['server/oracle/http/**/*.ts'],
    tests: [
      'test/oracle/http/event-stream.test.ts',
      'test/oracle/http/route-answers.test.ts',
      'test/oracle/runtime/model-failure.test.ts',
      'test/oracle/auth/capability-tokens-http.test.ts',
      'test/oracle/models/models.test.ts',
      'test/security/rooms.test.ts',
      'test/security/regressions.test.ts',
      'test/platform/drain.test.ts',
      'test/oracle/http/error-handler.test.ts',
      'test/oracle/http/streaming-chat.test.ts',
      'test/oracle/http/sessions.test.ts',
      'test/oracle/runs/abort-and-one-stream.test.ts',
      'test/oracle/runs/abort-order.test.ts',
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
      'test/oracle/plugins/user-preferences.test.ts',
      'test/oracle/plugins/user-preferences-instructions.test.ts',
      'test/oracle/plugins/plugins-table.test.ts',
    ],
  },
  {
    name: 'plugin-credits',
    mutate: ['server/oracle/plugins/credits/**/*.ts', 'server/db/migrations/0006-credits.ts'],
    tests: [
      'test/oracle/plugins/credits-verify-payment.test.ts',
      'test/oracle/plugins/credits-ledger.test.ts',
      'test/oracle/plugins/memory-and-credits.test.ts',
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
      'test/ussd/engine/*.test.ts',
      'test/ussd/actions/account-actions.test.ts',
      'test/menus/pagination.test.ts',
      'test/ussd/scenarios/flows.test.ts',
      'test/ussd/http/spec-replies.test.ts',
      'test/ussd/crypto/pin-secrecy.test.ts',
    ],
  },
];

/** A test glob as Stryker reads it (`*` within a folder, `**` across folders) as a pattern over repo paths. */
function globPattern(glob: string): RegExp {
  const body = glob
    .split('**/')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('(?:.*/)?');
  return new RegExp(`^${body}$`);
}

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    concurrency: { type: 'string', default: '2' },
    'no-write': { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
    rewrite: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
if (opts.list) {
  const files = [...(await listFiles(path.join(REPO_ROOT, 'test'))).map((f) => `test/${f}`)];
  files.push(...(await listFiles(path.join(REPO_ROOT, 'sdk/test'))).map((f) => `sdk/test/${f}`));
  let missing = false;
  for (const m of MODULES) {
    console.log(`${m.name}\t${m.mutate.join(', ')}`);
    for (const glob of m.tests) {
      const pattern = globPattern(glob);
      const found = files.filter((f) => pattern.test(f));
      if (found.length === 0) {
        console.error(`  ${glob}: no test file`);
        missing = true;
      }
      for (const f of found) console.log(`  ${f}`);
    }
  }
  process.exit(missing ? 1 : 0);
}
const unknown = positionals.filter((name) => !MODULES.some((m) => m.name === name));
if (unknown.length > 0) {
  console.error(`Unknown module(s): ${unknown.join(', ')}. Known: ${MODULES.map((m) => m.name).join(', ')}`);
  process.exit(2);
}
const selected = positionals.length > 0 ? MODULES.filter((m) => positionals.includes(m.name)) : MODULES;

/** A mutant that no test noticed, as docs/mutation-survivors.md lists it. */
interface Survivor {
  file: string;
  line: number;
  mutator: string;
  replacement: string;
  status: 'Survived' | 'NoCoverage';
}

/** The counts of a Stryker JSON report (mutation-testing-report-schema), and its survivors. */
interface Score {
  mutants: number;
  killed: number;
  survived: number;
  noCoverage: number;
  /** Killed (including timeouts) over killed + survived + no coverage, in percent. */
  score: number;
  survivors: Survivor[];
  /** The day the report was written (YYYY-MM-DD). */
  date: string;
}

interface ReportMutant {
  status: string;
  mutatorName: string;
  replacement?: string;
  location: { start: { line: number } };
}

const reportFileOf = (m: MutationModule): string =>
  path.join(REPO_ROOT, 'reports', 'mutation', m.name, 'mutation.json');

async function scoreOf(reportFile: string): Promise<Score> {
  const report = JSON.parse(await readFile(reportFile, 'utf8')) as {
    files: Record<string, { mutants: ReportMutant[] }>;
  };
  const all = Object.values(report.files).flatMap((f) => f.mutants);
  const count = (...statuses: string[]): number => all.filter((m) => statuses.includes(m.status)).length;
  const killed = count('Killed', 'Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const valid = killed + survived + noCoverage;
  const survivors = Object.entries(report.files)
    .flatMap(([file, f]) =>
      f.mutants
        .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
        .map((m): Survivor => ({
          file: path.isAbsolute(file) ? path.relative(REPO_ROOT, file) : file,
          line: m.location.start.line,
          mutator: m.mutatorName,
          replacement: m.replacement ?? '',
          status: m.status as Survivor['status'],
        })),
    )
    .sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return {
    mutants: valid,
    killed,
    survived,
    noCoverage,
    score: valid === 0 ? 100 : (100 * killed) / valid,
    survivors,
    date: (await stat(reportFile)).mtime.toISOString().slice(0, 10),
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
  return scoreOf(reportFileOf(m));
}

const SCORES_DOC = path.join(REPO_ROOT, 'docs/testing.md');
const SURVIVORS_DOC = path.join(REPO_ROOT, 'docs/mutation-survivors.md');
const START = '<!-- mutation-scores:start (written by npm run test:mutation; do not edit) -->';
const END = '<!-- mutation-scores:end -->';
const HEADER = [
  '| Module | Files | Mutants | Killed | Survived | No coverage | Score | Run on |',
  '|---|---|---|---:|---:|---:|---:|---|',
];

function row(m: MutationModule, s: Score): string {
  return (
    `| ${m.name} | ${m.mutate.map((g) => `\`${g}\``).join(', ')} | ${s.mutants} | ${s.killed} | ${s.survived} | ` +
    `${s.noCoverage} | **${s.score.toFixed(1)} %** | ${s.date} |`
  );
}

/** A replacement as a table cell: one line, no pipe, at most 60 characters. */
function cell(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const short = line.length > 60 ? `${line.slice(0, 57)}…` : line;
  return short ? `\`${short.replace(/\|/g, '\\|').replace(/`/g, "'")}\`` : '(removed)';
}

const SURVIVORS_HEAD = [
  '# Surviving mutants',
  '',
  '<!-- Written by npm run test:mutation (scripts/tools/mutation.ts); do not edit. -->',
  '',
  'The mutants no test noticed, per module, from the last run of each (`npm run test:mutation -- <module>`).',
  'Scores and how to read them: [testing](testing.md#mutation-testing). A survivor is either a gap in the tests',
  'or an equivalent mutant (no behaviour can tell it from the code); check it by hand before calling it either.',
  'Lines are those of the code that was run.',
];

function survivorsSection(m: MutationModule, s: Score): string {
  const rows = s.survivors.map(
    (v) =>
      `| \`${v.file}\` | ${v.line} | ${v.mutator} | ${cell(v.replacement)} | ${v.status === 'Survived' ? 'survived' : 'no coverage'} |`,
  );
  return [
    `<!-- survivors:${m.name} -->`,
    `## ${m.name}`,
    '',
    `Run on ${s.date}: ${s.score.toFixed(1)} %, ${s.mutants} mutants, ${s.survived} survived, ${s.noCoverage} without coverage.`,
    '',
    ...(rows.length
      ? ['| File | Line | Mutator | Replacement | Status |', '|---|---:|---|---|---|', ...rows]
      : ['None.']),
    `<!-- /survivors:${m.name} -->`,
  ].join('\n');
}

/** docs/mutation-survivors.md: this run's modules written, the others' sections kept as they were. */
async function writeSurvivors(runs: Map<string, Score>): Promise<void> {
  const old = await readFile(SURVIVORS_DOC, 'utf8').catch(() => '');
  const sections = MODULES.map((m) => {
    const s = runs.get(m.name);
    if (s) return survivorsSection(m, s);
    const kept = new RegExp(`<!-- survivors:${m.name} -->[\\s\\S]*?<!-- /survivors:${m.name} -->`).exec(
      old,
    )?.[0];
    return (
      kept ??
      [
        `<!-- survivors:${m.name} -->`,
        `## ${m.name}`,
        '',
        `Not listed yet: \`npm run test:mutation -- ${m.name}\` writes it.`,
        `<!-- /survivors:${m.name} -->`,
      ].join('\n')
    );
  });
  await writeFile(
    SURVIVORS_DOC,
    `${[...SURVIVORS_HEAD, '', ...sections.flatMap((x) => [x, ''])].join('\n').trimEnd()}\n`,
  );
}

async function writeScores(scores: Map<string, string>): Promise<void> {
  const doc = SCORES_DOC;
  const text = await readFile(doc, 'utf8');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/testing.md has no ${START} … ${END} block`);
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
    doc,
    `${text.slice(0, from + START.length)}\n${[...HEADER, ...rows].join('\n')}\n${text.slice(to)}`,
  );
}

const runs = new Map<string, Score>();
const scores = new Map<string, string>();
let failed = false;
if (opts.rewrite) {
  const named = positionals.length > 0;
  for (const m of selected) {
    const report = reportFileOf(m);
    const found = await stat(report).then(
      () => true,
      () => false,
    );
    if (!found) {
      if (named) {
        console.error(`${m.name}: no report at ${path.relative(REPO_ROOT, report)}`);
        failed = true;
      }
      continue;
    }
    const s = await scoreOf(report);
    runs.set(m.name, s);
    scores.set(m.name, row(m, s));
  }
  await writeScores(scores);
  await writeSurvivors(runs);
  console.log(`docs written from ${runs.size} report(s): ${[...runs.keys()].join(', ') || 'none'}`);
  process.exit(failed ? 1 : 0);
}
for (const m of selected) {
  try {
    const s = await runModule(m);
    console.log(
      `${m.name}: ${s.score.toFixed(1)} % (${s.killed} killed, ${s.survived} survived, ${s.noCoverage} no coverage)`,
    );
    runs.set(m.name, s);
    scores.set(m.name, row(m, s));
  } catch (err) {
    console.error(String(err));
    failed = true;
  }
  // Written after each module: a long run stopped half-way keeps what it measured.
  if (!opts['no-write'] && scores.size > 0) {
    await writeScores(scores);
    await writeSurvivors(runs);
  }
}
process.exit(failed ? 1 : 0);
