/**
 * `npm run bench`: every benchmark, briefly, each headline figure printed beside the one of the last full run
 * (bench/figures.json, shown in docs/performance.md), exiting 1 when a figure is more than 20 % worse. Run it
 * before a change to a request path, the start command or a dependency lands.
 *
 *   npm run bench                       # brief runs (a few minutes), compared with bench/figures.json
 *   npm run bench -- --only ussd,chain  # some of them
 *   npm run bench -- --full --write     # full runs; their figures go to bench/figures.json and docs/performance.md
 *   npm run bench -- --write-doc        # no run: docs/performance.md's table again from bench/figures.json
 *
 * Every figure is a ratio to a baseline measured in the same run, or CPU time per unit of work, so that
 * figures from different days and machines of the same kind can be compared at all; absolute rates are left
 * to each bench's own output. The machines here are noisy: a brief run that misses by a little is worth a
 * second run before it is believed, and a full run before a figure is written down.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { writeMarkedBlock } from '../scripts/lib/marked-block.js';
import type { Figure } from './lib/figures.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const FIGURES_FILE = path.join(ROOT, 'bench/figures.json');
const DOC = path.join(ROOT, 'docs/performance.md');
const FIGURES_START = '<!-- bench-figures (written by npm run bench -- --full --write; do not edit) -->';
const FIGURES_END = '<!-- /bench-figures -->';
/** How much worse than the last full run's figure a brief run may come out before it fails. */
const TOLERANCE = 0.2;

interface BenchSpec {
  name: string;
  /** The npm script of the full run. */
  script: string;
  /** Settings of a brief run (a full run uses each bench's defaults). */
  brief: Record<string, string>;
  /** Settings of every run of it, brief or full (what the column measures). */
  always?: () => Record<string, string> | undefined;
  /** How its command reads in docs/performance.md, when more than `npm run <script>`. */
  command?: string;
}

/** The machine's PostgreSQL and Redis (DATABASE_URL, REDIS_URL): the deployment column of the agent bench. */
const servers = (): Record<string, string> | undefined => {
  const db = process.env['DATABASE_URL'];
  const redis = process.env['REDIS_URL'];
  return db && redis ? { BENCH_DATABASE_URL: db, BENCH_REDIS_URL: redis } : undefined;
};

/** A brief run of the agent bench, in either column. */
const ORACLE_BRIEF = {
  BENCH_ROUNDS: '1',
  BENCH_DURATION_S: '4',
  BENCH_SOLO_S: '2',
  BENCH_WARMUP_S: '2',
  BENCH_IDLE_STREAMS: '300',
};

const BENCHES: BenchSpec[] = [
  {
    name: 'ussd',
    script: 'bench:ussd',
    brief: { BENCH_ROUNDS: '2', BENCH_DURATION_S: '4', BENCH_WARMUP_S: '2', BENCH_SOLO_S: '0' },
  },
  {
    name: 'chain',
    script: 'bench:chain',
    brief: { BENCH_ROUNDS: '2', BENCH_DURATION_S: '4', BENCH_SOLO_S: '2', BENCH_WARMUP_S: '2' },
  },
  {
    name: 'oracle',
    script: 'bench:oracle',
    brief: ORACLE_BRIEF,
  },
  {
    name: 'oracle-pg-redis',
    script: 'bench:oracle',
    always: servers,
    command: 'BENCH_DATABASE_URL=… BENCH_REDIS_URL=… npm run bench:oracle',
    brief: ORACLE_BRIEF,
  },
  { name: 'sdk', script: 'bench:sdk', brief: { BENCH_SDK_SECONDS: '2' } },
];

/** A figure as bench/figures.json keeps it: with the run it comes from (a full run may measure some benches only). */
interface KeptFigure extends Figure {
  /** The day of the full run that measured it (YYYY-MM-DD). */
  measured?: string;
  machine?: string;
}

interface FiguresFile {
  /** The day of the last full run, and its command and machine: the default of figures that name none. */
  measured: string;
  command: string;
  machine: string;
  figures: KeptFigure[];
}

function parseArgs(argv: string[]): { full: boolean; write: boolean; writeDoc: boolean; only?: string[] } {
  const only = argv.find((a, i) => argv[i - 1] === '--only');
  const unknown = argv.filter(
    (a, i) => !['--full', '--write', '--write-doc', '--only'].includes(a) && argv[i - 1] !== '--only',
  );
  if (unknown.length > 0 || (argv.includes('--write') && !argv.includes('--full'))) {
    console.error(
      'usage: npm run bench [-- --only ussd,chain,oracle,oracle-pg-redis,sdk] [-- --full [--write]] | npm run bench -- --write-doc',
    );
    process.exit(2);
  }
  return {
    full: argv.includes('--full'),
    write: argv.includes('--write'),
    writeDoc: argv.includes('--write-doc'),
    ...(only ? { only: only.split(',') } : {}),
  };
}

/** Runs one bench's npm script with BENCH_JSON_OUT; its own output goes to the terminal as it comes. */
async function runBench(spec: BenchSpec, full: boolean, dir: string): Promise<Figure[]> {
  const out = path.join(dir, `${spec.name}.json`);
  const always = spec.always?.();
  if (spec.always && !always) {
    console.log(`\n=== ${spec.name}: skipped (it needs DATABASE_URL and REDIS_URL)`);
    return [];
  }
  const env = { ...process.env, ...(full ? {} : spec.brief), ...always, BENCH_JSON_OUT: out };
  console.log(`\n=== npm run ${spec.script}${full ? '' : ' (brief)'}`);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('npm', ['run', '-s', spec.script], { cwd: ROOT, env, stdio: 'inherit' });
    child.on('exit', resolve);
  });
  // A bench exits 1 when it misses its own targets; its figures still count here.
  const text = await readFile(out, 'utf8').catch(() => undefined);
  if (text === undefined) throw new Error(`npm run ${spec.script} wrote no figures (exit code ${code})`);
  return (JSON.parse(text) as { figures: Figure[] }).figures;
}

const format = (f: Figure | undefined): string =>
  f === undefined || !Number.isFinite(f.value)
    ? '—'
    : `${f.value >= 100 ? Math.round(f.value) : Number(f.value.toPrecision(3))} ${f.unit === 'ratio' ? '×' : f.unit}`;

/** How much worse `now` is than `then`, as a fraction (negative: better). */
function worseBy(then: Figure, now: Figure): number {
  return then.better === 'higher'
    ? (then.value - now.value) / then.value
    : (now.value - then.value) / then.value;
}

function table(rows: string[][]): string {
  return rows.map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** The npm script that measures a figure, from its id's first part (`ussd.memory.ratio` → `bench:ussd`). */
function commandOf(f: Figure): string {
  const spec = BENCHES.find((b) => f.id.startsWith(`${b.name}.`));
  return spec ? (spec.command ?? `npm run ${spec.script}`) : 'npm run bench -- --full';
}

/** docs/performance.md's table: one row per figure, with the command, day and machine of its run. */
function figuresTable(file: FiguresFile): string {
  const rows = file.figures.map((f) => [
    f.label,
    format(f),
    f.better,
    `\`${commandOf(f)}\``,
    f.measured ?? file.measured,
    f.machine ?? file.machine,
  ]);
  return table([
    ['figure', 'value', 'better', 'measured by', 'on', 'machine'],
    ['---', '---:', '---', '---', '---', '---'],
    ...rows,
  ]);
}

async function writeDoc(file: FiguresFile): Promise<void> {
  await writeMarkedBlock(DOC, FIGURES_START, FIGURES_END, figuresTable(file));
}

async function main(): Promise<void> {
  const { full, write, writeDoc: docOnly, only } = parseArgs(process.argv.slice(2));
  const known: FiguresFile | undefined = await readFile(FIGURES_FILE, 'utf8')
    .then((t) => JSON.parse(t) as FiguresFile)
    .catch(() => undefined);
  if (docOnly) {
    if (!known) throw new Error('bench/figures.json is missing: run npm run bench -- --full --write');
    await writeDoc(known);
    console.log('docs/performance.md table written from bench/figures.json');
    return;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-'));
  const measured: Figure[] = [];
  try {
    for (const spec of BENCHES.filter((b) => !only || only.includes(b.name))) {
      measured.push(...(await runBench(spec, full, dir)));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const rows: string[][] = [];
  let worse = 0;
  for (const now of measured) {
    const then = known?.figures.find((f) => f.id === now.id);
    const by = then ? worseBy(then, now) : undefined;
    const verdict =
      by === undefined || !Number.isFinite(by)
        ? 'new'
        : by > TOLERANCE
          ? `WORSE by ${Math.round(by * 100)} %`
          : by > 0
            ? `${Math.round(by * 100)} % worse (within ${TOLERANCE * 100} %)`
            : `${Math.round(-by * 100)} % better`;
    if (by !== undefined && by > TOLERANCE) worse += 1;
    rows.push([now.label, format(then), format(now), verdict]);
  }
  console.log(
    `\n=== ${full ? 'full' : 'brief'} runs against bench/figures.json (${known?.measured ?? 'none yet'})`,
  );
  console.log(table([['figure', 'last full run', 'now', ''], ['---', '---', '---', '---'], ...rows]));
  if (write) {
    const day = new Date().toISOString().slice(0, 10);
    const machine = `${availableParallelism()} cores, Node ${process.version}`;
    // Figures not measured this time keep the day and machine of the run that measured them.
    const merged = new Map<string, KeptFigure>(
      (known?.figures ?? []).map((f) => [
        f.id,
        { ...f, measured: f.measured ?? known?.measured, machine: f.machine ?? known?.machine },
      ]),
    );
    for (const f of measured) merged.set(f.id, { ...f, measured: day, machine });
    const file: FiguresFile = {
      measured: day,
      command: `npm run bench -- --full --write${only ? ` --only ${only.join(',')}` : ''}`,
      machine,
      figures: [...merged.values()],
    };
    await writeFile(FIGURES_FILE, `${JSON.stringify(file, null, 2)}\n`);
    await writeDoc(file);
    console.log('bench/figures.json and the table of docs/performance.md written');
  }
  if (worse > 0 && !write) {
    console.log(`${worse} figure(s) more than ${TOLERANCE * 100} % worse than the last full run's`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
