// `npm run bench:ussd`: the USSD gateway, started as users run it in production, against a bare Express app
// answering a constant CON string.
//
// Each server runs in a process of its own on loopback; this process drives the load with autocannon at 50
// connections. Every connection loops through one session: dial → `1` → `1*0`, with a fresh session id and
// a fresh random phone number per 3-request sequence (live traffic comes from many phones). All servers
// start first and are warmed up; then, in each round, every gateway target is measured right after a baseline
// phase of its own (the machine's speed drifts over seconds, so adjacent phases make the steadiest ratio),
// and then each target again with one connection, one request at a time (latency without queueing). The
// machine is noisy: the medians over the rounds are reported, with each round's ratio. Targets:
//   1. baseline: express 4 + the same JSON body parser, constant `CON` reply on POST /api/ussd;
//   2. gateway, in-process sessions: package.json's `start` command with NODE_ENV=production (every part
//      enabled, as shipped) on PostgreSQL;
//   3. gateway, Redis sessions and rate-limit counters: the same command with REDIS_URL (default
//      redis://127.0.0.1:6379);
//   4. diagnostic, not a target: the gateway in-process (startServer, USSD part only) with the engine test
//      double, which touches no database, to separate the gateway's own cost from the engine's database work.
// The gateways' database is a fresh database made for the run on BENCH_DATABASE_URL's server (default
// postgres://postgres@127.0.0.1:5432/test) and dropped at the end. Environment: BENCH_ROUNDS (3),
// BENCH_DURATION_S (8), BENCH_SOLO_S (3; 0 skips the one-connection phase), BENCH_WARMUP_S (3),
// BENCH_CONNECTIONS (50), BENCH_ROLES (a comma-separated subset of the gateway targets), BENCH_CPU_PROF_DIR
// (write a V8 CPU profile of every server), BENCH_JSON_OUT (write the headline figures as JSON there),
// BENCH_AGAINST_DIR (another installed checkout, e.g. a `git worktree` of an older commit: its own `npm start`
// in production with in-process sessions, on a database of its own, becomes one more target, "against";
// with BENCH_AGAINST_REDIS=1 it keeps its sessions in Redis, to compare with "gateway-redis").
// "server CPU µs/req" is the server process's user + system CPU time over its requests. Latencies are split
// into the dial (the gateway looks up the phone's account in the database) and the two navigation steps.
// The rate limiter stays on (limit raised far above the load) so its cost is measured. Replies are
// checked: anything but HTTP 200 `CON …` counts as an error. The idle RSS of each started gateway is read
// once it is healthy and has settled, before any load.
// Targets (issue 23): in-process ≥ 0.85 of baseline throughput with p99 ≤ 1.4 × the baseline's; idle RSS on
// PostgreSQL ≤ 160 MB.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ed25519 } from '@ucanto/principal';
import autocannon from 'autocannon';
import express from 'express';
import { loadConfig } from '../server/config.js';
import { openDb } from '../server/db/index.js';
import { createLogger } from '../server/logger.js';
import { startServer } from '../server/server.js';
import { actAsMeasuredChild, cpuOf, median, percentile, stopChildren } from './lib/measure.js';
import { startProductionCommand } from './lib/start-command.js';
import type { Figure } from './lib/figures.js';
import { freshDatabase } from './lib/fresh-database.js';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const WARMUP_S = Number(process.env['BENCH_WARMUP_S'] ?? 3);
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 8);
/** Seconds per target per round of one connection, one request at a time: latency without queueing. */
const SOLO_S = Number(process.env['BENCH_SOLO_S'] ?? 3);
/** Rounds of measurement; every round measures each target once, in turn, against the same baseline. */
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
/** When set, every server child writes a V8 CPU profile (`node --cpu-prof`) into this directory on exit. */
const PROFILE_DIR = process.env['BENCH_CPU_PROF_DIR'];
const REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const DATABASE_SERVER = process.env['BENCH_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/test';
const JSON_OUT = process.env['BENCH_JSON_OUT'];
/** Another checkout (e.g. a `git worktree` of an older commit, installed): its `npm start`, measured as a target too. */
const AGAINST_DIR = process.env['BENCH_AGAINST_DIR'];
const AGAINST_REDIS = process.env['BENCH_AGAINST_REDIS'] === '1';
const TARGETS = { memoryRatio: 0.85, memoryP99Ratio: 1.4, idleRssMb: 160 };

type Role = 'baseline' | 'gateway-memory' | 'gateway-redis' | 'gateway-memory-no-db' | 'against';
/** Not a target: the chain node the started gateways talk to, as a deployment's gateway has one elsewhere. */
type Helper = 'chain-node';

// --- child roles ---

function runBaseline(): void {
  const app = express();
  app.disable('x-powered-by');
  app.post('/api/ussd', express.json({ limit: '4kb' }), (_req, res) => {
    res.type('text/plain').send('CON Welcome to Open Oracles\n1. Know More\n2. Account\n*. Exit');
  });
  const server = app.listen(0, '127.0.0.1', () => {
    process.send?.({ ready: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
}

/** The embedded fixture chain node on its own, in a process of its own; tells its gRPC address. */
async function runChainNode(): Promise<void> {
  const { startFixtureNode } = await import('../server/chain/fixture-node/fixture-node.js');
  const node = await startFixtureNode({ publicBaseUrl: 'http://127.0.0.1' });
  process.send?.({ ready: node.address });
}

/** The gateway without the menu engine's database work: the same server with the engine test double. */
async function runGatewayWithoutDb(): Promise<void> {
  const { scriptedUssdPart } = await import('../test/helpers/scripted-test-engine.js');
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    ENABLED_PARTS: 'ussd',
    DATABASE_URL: 'postgres://unused.invalid/bench',
    PIN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    USSD_RATE_LIMIT_PER_MINUTE: '1000000000',
    // The load comes from loopback, as over an aggregator's private link (docs/ussd-gateway.md).
    USSD_AGGREGATOR_AUTH: 'network',
  });
  const db = await openDb({ kind: 'pglite' }); // for /health only; the engine double never queries it
  const server = await startServer(config, {
    db,
    port: 0,
    logger: createLogger('silent'),
    parts: { ussd: scriptedUssdPart() },
  });
  process.send?.({ ready: server.url });
}

function forkChild(role: Role | Helper): Promise<{ child: ChildProcess; url: string }> {
  const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child = fork(fileURLToPath(import.meta.url), ['--role', role], {
    execArgv: [...process.execArgv, ...profile],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
    child.once('message', (m: { ready?: string }) =>
      m.ready ? resolve({ child, url: m.ready }) : undefined,
    );
  });
}

async function forkRole(role: Role): Promise<Running> {
  const { child, url } = await forkChild(role);
  return { role, child, url, cpu: () => cpuOf(child) };
}

/** The gateway as shipped: `npm start`'s command in production mode, every part enabled, on PostgreSQL. */
async function startGateway(
  role: Role,
  databaseUrl: string,
  chainGrpcUrl: string,
  root?: string,
): Promise<Running> {
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    CHAIN_GRPC_URL: chainGrpcUrl,
    PIN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ORACLE_SIGNING_KEY: ed25519.format(await ed25519.generate()),
    USSD_RATE_LIMIT_PER_MINUTE: '1000000000',
    USSD_SESSION_TTL_SECONDS: '60',
    // Production wants these (issue 36); the load comes from loopback, as over an aggregator's private link.
    USSD_AGGREGATOR_AUTH: 'network',
    ORACLE_CORS_ORIGINS: 'https://app.example.org',
  };
  if (role === 'gateway-redis' || (role === 'against' && AGAINST_REDIS)) env['REDIS_URL'] = REDIS_URL;
  if (process.env['LOG_LEVEL']) env['LOG_LEVEL'] = process.env['LOG_LEVEL'];
  const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const server = await startProductionCommand(env, { execArgv: profile, ...(root ? { root } : {}) });
  await sleep(2000); // settle: start-up garbage collected, timers of the first seconds run
  const idleRssMb = await server.rssMb();
  return { role, child: server.child, url: server.url, cpu: server.cpuMicros, idleRssMb };
}

// --- load ---

interface Result {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  sorted: Float64Array;
  /** Latencies of the dials alone (the step that looks up the phone's account), ascending. */
  dials: Float64Array;
  /** Latencies of the two navigation steps (`1`, `1*0`), ascending. */
  navigation: Float64Array;
  /** CPU time the server process spent during the measured phase. */
  serverCpuMicros?: number;
}

/** A Kenyan mobile number, random: each sequence comes from its own phone, as live traffic does. */
const randomPhone = (): string => `+2547${String(randomBytes(4).readUInt32BE() % 1e8).padStart(8, '0')}`;

interface Sequence {
  sessionId?: string;
  phoneNumber?: string;
  /** When the current request was built, which autocannon does just before writing it. */
  sentAt?: number;
}

/** Per target, the distinct wrong answers seen (status and the reply's start), printed after the table. */
const wrongAnswers = new Map<string, Map<string, number>>();
function noteWrong(name: string, what: string): void {
  const seen = wrongAnswers.get(name) ?? new Map<string, number>();
  seen.set(what, (seen.get(what) ?? 0) + 1);
  wrongAnswers.set(name, seen);
}

function drive(name: string, url: string, seconds: number, connections = CONNECTIONS): Promise<Result> {
  const latencies: number[] = [];
  const dials: number[] = [];
  const navigation: number[] = [];
  let errors = 0;
  const step = (text: string, fresh: boolean): autocannon.Request => ({
    method: 'POST',
    path: '/api/ussd',
    headers: { 'content-type': 'application/json' },
    setupRequest: (req, context: Sequence) => {
      if (fresh) {
        context.sessionId = `bench-${randomBytes(8).toString('hex')}`;
        context.phoneNumber = randomPhone();
      }
      context.sentAt = performance.now();
      const { sessionId, phoneNumber } = context;
      return { ...req, body: JSON.stringify({ sessionId, serviceCode: '*384*123#', phoneNumber, text }) };
    },
    onResponse: (status, reply, context: Sequence) => {
      if (status !== 200 || !reply.startsWith('CON ')) {
        errors += 1;
        noteWrong(name, `${status} ${reply.slice(0, 60)} (after "${text}")`);
      } else (fresh ? dials : navigation).push(performance.now() - (context.sentAt ?? NaN));
    },
  });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        requests: [step('', true), step('1', false), step('1*0', false)],
      },
      (err: unknown) =>
        err
          ? reject(err instanceof Error ? err : new Error('autocannon failed', { cause: err }))
          : resolve({
              name,
              requests: latencies.length,
              errors,
              seconds: (performance.now() - started) / 1000,
              sorted: Float64Array.from(latencies).sort(),
              dials: Float64Array.from(dials).sort(),
              navigation: Float64Array.from(navigation).sort(),
            }),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status === 200) latencies.push(ms);
    });
    instance.on('reqError', (err: Error) => {
      errors += 1;
      noteWrong(name, `request error: ${err.message}`);
    });
  });
}

const rps = (r: Result): number => r.requests / r.seconds;

interface Running {
  role: Role;
  child: ChildProcess;
  url: string;
  /** The server process's CPU time so far, in microseconds. */
  cpu(): Promise<number>;
  /** RSS once started and settled, before any load (the started gateways). */
  idleRssMb?: number;
}

/** One loaded phase of a running server, with the CPU time the server spent in it. */
async function measure({ role, url, cpu }: Running): Promise<Result> {
  const cpuBefore = await cpu();
  const result = await drive(role, url, DURATION_S);
  result.serverCpuMicros = (await cpu()) - cpuBefore;
  return result;
}

/** Every measurement of a run, per target. */
interface Samples {
  /** Loaded phases. The baseline has one per gateway target per round, each just before that target's. */
  loaded: Result[];
  /** For a gateway target, its throughput over that of the baseline phase just before it, per round. */
  ratios: number[];
  /** For a gateway target, its p99 over that of the baseline phase just before it, per round. */
  p99Ratios: number[];
  /** One-connection phases, one per round. */
  solo: Result[];
}

/** Per target, the medians over its phases; the ratio is the median of the per-round paired ratios. */
interface Summary {
  target: Role;
  rps: number;
  p50: number;
  p99: number;
  /** p50/p99 of the dials and of the navigation steps, apart. */
  dial: [number, number];
  nav: [number, number];
  /** p50/p99 with one connection (no queueing), overall, dials, navigation. */
  solo: { all: [number, number]; dial: [number, number]; nav: [number, number] };
  ratio: number;
  ratios: number[];
  /** Median of the per-round p99 ratios against the baseline phase just before. */
  p99Ratio: number;
  cpuPerRequest: number;
  requests: number;
  errors: number;
}

/** Medians over the phases of each phase's p50 and p99. */
const p50p99 = (samples: Float64Array[]): [number, number] =>
  [50, 99].map((p) => median(samples.map((sorted) => percentile(sorted, p)))) as [number, number];

function summarise(role: Role, { loaded: mine, ratios, p99Ratios, solo }: Samples): Summary {
  return {
    target: role,
    rps: median(mine.map(rps)),
    p50: median(mine.map((r) => percentile(r.sorted, 50))),
    p99: median(mine.map((r) => percentile(r.sorted, 99))),
    dial: p50p99(mine.map((r) => r.dials)),
    nav: p50p99(mine.map((r) => r.navigation)),
    solo: {
      all: p50p99(solo.map((r) => r.sorted)),
      dial: p50p99(solo.map((r) => r.dials)),
      nav: p50p99(solo.map((r) => r.navigation)),
    },
    ratio: role === 'baseline' ? 1 : median(ratios),
    ratios,
    p99Ratio: role === 'baseline' ? 1 : median(p99Ratios),
    cpuPerRequest: median(mine.map((r) => (r.serverCpuMicros ?? NaN) / r.requests)),
    requests: mine.reduce((n, r) => n + r.requests, 0),
    errors: mine.reduce((n, r) => n + r.errors, 0),
  };
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--role');
  const role = at === -1 ? undefined : process.argv[at + 1];
  if (role !== undefined) actAsMeasuredChild();
  if (role === 'baseline') return runBaseline();
  if (role === 'gateway-memory-no-db') return runGatewayWithoutDb();
  if (role === 'chain-node') return runChainNode();

  const only = process.env['BENCH_ROLES']?.split(',');
  const roles: Role[] = (
    ['baseline', 'gateway-memory', 'gateway-redis', 'gateway-memory-no-db'] as const
  ).filter((r) => r === 'baseline' || !only || only.includes(r));
  if (AGAINST_DIR) roles.push('against');
  console.log(
    `USSD gateway bench: ${CONNECTIONS} connections, sequence dial → 1 → 1*0 with a fresh session id per ` +
      `sequence; ${WARMUP_S}s warm-up, then ${ROUNDS} rounds of ${DURATION_S}s phases (baseline, target) per ` +
      `target; gateways: \`npm start\` in production on a fresh PostgreSQL database ` +
      `(${new URL(DATABASE_SERVER).host})`,
  );
  const database = await freshDatabase(DATABASE_SERVER, 'bench');
  // The other checkout's server gets a database of its own: its migrations may differ from this one's.
  const againstDatabase = AGAINST_DIR ? await freshDatabase(DATABASE_SERVER, 'bench') : undefined;
  const running: Running[] = [];
  const helpers: ChildProcess[] = [];
  try {
    const chainNode = await forkChild('chain-node');
    helpers.push(chainNode.child);
    for (const role of roles) {
      running.push(
        role === 'gateway-memory' || role === 'gateway-redis'
          ? await startGateway(role, database.url, chainNode.url)
          : role === 'against'
            ? await startGateway(role, againstDatabase?.url ?? '', chainNode.url, AGAINST_DIR)
            : await forkRole(role),
      );
    }
    for (const r of running) await drive(r.role, r.url, WARMUP_S);
    const samples = new Map(
      roles.map((role): [Role, Samples] => [role, { loaded: [], ratios: [], p99Ratios: [], solo: [] }]),
    );
    const of = (role: Role): Samples => samples.get(role) as Samples;
    const [baseline, ...targets] = running as [Running, ...Running[]];
    for (let i = 0; i < ROUNDS; i++) {
      // Each target right after a baseline phase of its own: the machine's speed drifts over seconds, so a
      // ratio of two adjacent phases is steadier than one against a baseline measured minutes apart.
      for (const target of targets) {
        const base = await measure(baseline);
        const mine = await measure(target);
        of('baseline').loaded.push(base);
        of(target.role).loaded.push(mine);
        of(target.role).ratios.push(rps(mine) / rps(base));
        of(target.role).p99Ratios.push(percentile(mine.sorted, 99) / percentile(base.sorted, 99));
      }
      if (SOLO_S > 0) for (const r of running) of(r.role).solo.push(await drive(r.role, r.url, SOLO_S, 1));
    }
    const summaries = roles.map((role) => summarise(role, of(role)));
    const idleRss = (role: Role): number | undefined => running.find((r) => r.role === role)?.idleRssMb;
    console.table(
      summaries.map((m) => ({
        target: m.target,
        'req/s': Math.round(m.rps),
        'p50 ms': m.p50.toFixed(2),
        'p99 ms': m.p99.toFixed(2),
        'dial p50/p99': m.dial.map((x) => x.toFixed(1)).join(' / '),
        'nav p50/p99': m.nav.map((x) => x.toFixed(1)).join(' / '),
        'vs baseline': m.ratio.toFixed(2),
        'per round': m.ratios.map((x) => x.toFixed(2)).join(' '),
        'p99 vs baseline': m.target === 'baseline' ? '1.00' : m.p99Ratio.toFixed(2),
        'server CPU µs/req': Math.round(m.cpuPerRequest),
        'idle RSS MB': idleRss(m.target)?.toFixed(0) ?? '',
        requests: m.requests,
        errors: m.errors,
      })),
    );
    console.log(
      'Medians over the phases; "vs baseline" is the median of the per-round ratios, each against the ' +
        'baseline phase just before ("p99 vs baseline" likewise for p99). "dial" is the first request of a ' +
        'sequence (the gateway looks up the phone\'s account), "nav" the two that follow.',
    );
    if (SOLO_S > 0) {
      const ms = ([p50, p99]: [number, number]): string => `${p50.toFixed(2)} / ${p99.toFixed(2)}`;
      console.log(
        `One connection, one request at a time (${SOLO_S}s per target per round): latency without queueing.`,
      );
      console.table(
        summaries.map((m) => ({
          target: m.target,
          'p50/p99 ms': ms(m.solo.all),
          'dial p50/p99': ms(m.solo.dial),
          'nav p50/p99': ms(m.solo.nav),
        })),
      );
    }
    const find = (role: Role): Summary | undefined => summaries.find((m) => m.target === role);
    const memory = find('gateway-memory');
    const redis = find('gateway-redis');
    const checks: [string, boolean][] = [];
    const figures: Figure[] = [];
    if (memory) {
      const rss = idleRss('gateway-memory') ?? NaN;
      checks.push(
        [`in-process sessions ≥ ${TARGETS.memoryRatio} of baseline`, memory.ratio >= TARGETS.memoryRatio],
        [
          `in-process sessions p99 ≤ ${TARGETS.memoryP99Ratio} × baseline's`,
          memory.p99Ratio <= TARGETS.memoryP99Ratio,
        ],
        [`idle RSS of npm start on PostgreSQL ≤ ${TARGETS.idleRssMb} MB`, rss <= TARGETS.idleRssMb],
      );
      figures.push(
        {
          id: 'ussd.memory.ratio',
          label: 'in-process sessions, throughput vs baseline',
          value: memory.ratio,
          unit: 'ratio',
          better: 'higher',
        },
        {
          id: 'ussd.memory.p99Ratio',
          label: 'in-process sessions, p99 vs baseline',
          value: memory.p99Ratio,
          unit: 'ratio',
          better: 'lower',
        },
        {
          id: 'ussd.memory.cpuPerRequestVsBaseline',
          label: 'in-process sessions, CPU per request vs baseline',
          value: memory.cpuPerRequest / (find('baseline')?.cpuPerRequest ?? NaN),
          unit: 'ratio',
          better: 'lower',
        },
        {
          id: 'ussd.postgres.idleRssMb',
          label: 'idle RSS of npm start on PostgreSQL',
          value: rss,
          unit: 'MB',
          better: 'lower',
        },
      );
    }
    if (redis) {
      figures.push(
        {
          id: 'ussd.redis.ratio',
          label: 'Redis sessions, throughput vs baseline',
          value: redis.ratio,
          unit: 'ratio',
          better: 'higher',
        },
        {
          id: 'ussd.redis.p99Ratio',
          label: 'Redis sessions, p99 vs baseline',
          value: redis.p99Ratio,
          unit: 'ratio',
          better: 'lower',
        },
      );
    }
    checks.push(['no errors', summaries.every((m) => m.errors === 0)]);
    for (const [target, seen] of wrongAnswers)
      for (const [what, n] of seen) console.log(`wrong answer from ${target} (${n}×): ${what}`);
    for (const [what, ok] of checks) console.log(`${ok ? 'OK    ' : 'MISSED'} ${what}`);
    if (JSON_OUT) await writeFile(JSON_OUT, `${JSON.stringify({ bench: 'ussd', figures }, null, 2)}\n`);
    if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
  } finally {
    await stopChildren([...running.map(({ child }) => child), ...helpers]);
    await database.drop();
    await againstDatabase?.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
