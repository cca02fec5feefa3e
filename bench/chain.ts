// `npm run bench:chain`: the chain query gateway's overhead over talking gRPC to the node directly.
//
// Three processes on loopback, like a deployment: the fixture node (a grpc-js server), the gateway (the
// chain router in express, one grpc-js channel to the node) and this one, which drives the load:
//   1. HTTP through the gateway: autocannon, GET /ixo/entity/<oracle DID>;
//   2. gRPC straight to the node: a closed loop of the same number of concurrent callers, same entity.
// After a warm-up, each round measures, in turn: the gateway and direct gRPC at BENCH_CONCURRENCY, then both
// one request at a time. The machine is noisy, so the medians over the rounds are reported, with each
// round's value. Latencies are kept in milliseconds with microsecond resolution and the percentiles
// computed from the sorted samples.
// How the targets are judged: throughput as gateway/direct req/s at BENCH_CONCURRENCY (≥ 0.50); p50
// overhead as the gateway's p50 minus direct gRPC's p50 one request at a time (≤ 1 ms), which is the time
// the gateway adds to a request. Under concurrency the p50 difference is mostly queueing: by Little's law a
// gateway at half the direct throughput has about twice its latency, so that difference is printed too, but
// it restates the throughput ratio rather than the gateway's added time.
// Environment: BENCH_CONCURRENCY (10), BENCH_WARMUP_S (2), BENCH_ROUNDS (3), BENCH_DURATION_S (8),
// BENCH_UNLOADED_S (4). Exits non-zero only when requests fail; the targets are reported, not enforced.
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { credentials } from '@grpc/grpc-js';
import autocannon from 'autocannon';
import express from 'express';
import { QueryClient as EntityClient } from '../generated/proto/ixo/entity/v1beta1/query.js';
import { startFixtureNode } from '../server/chain/fixture-node/fixture-node.js';
import { createChainGrpcClient } from '../server/chain/grpc-client.js';
import { createChainRouter } from '../server/chain/router.js';
import { createLogger } from '../server/logger.js';
import { requestContext } from '../server/request-context.js';
import { actAsMeasuredChild, cpuOf, median, percentile } from './lib/measure.js';

const ENTITY = 'did:ixo:entity:oracle7d1e3c9a2b';
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 10);
const WARMUP_S = Number(process.env['BENCH_WARMUP_S'] ?? 2);
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 8);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const UNLOADED_S = Number(process.env['BENCH_UNLOADED_S'] ?? 4);
/** Targets of the issue: gateway p50 overhead at most 1 ms, at least half the direct throughput. */
const TARGET_P50_OVERHEAD_MS = 1;
const TARGET_THROUGHPUT_RATIO = 0.5;

interface PhaseResult {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: Float64Array;
}

// --- child roles ---

async function runNode(): Promise<void> {
  const node = await startFixtureNode({ publicBaseUrl: 'http://localhost:3000' });
  process.send?.({ ready: node.address });
}

function runGateway(nodeAddress: string): void {
  const logger = createLogger('silent');
  const app = express();
  app.disable('x-powered-by');
  app.use(requestContext(logger));
  app.use(
    createChainRouter({
      client: createChainGrpcClient({ url: nodeAddress }),
      logger,
      config: {
        CHAIN_ROUTE_PREFIX: 'ixo',
        CHAIN_LEGACY_PREFIXES: [],
        CHAIN_DISABLED_METHODS: [],
        CHAIN_REST_TOKEN: undefined,
        CHAIN_CORS_ORIGINS: [],
        CHAIN_GRPC_TIMEOUT_MS: 5000,
      },
    }),
  );
  const server = app.listen(0, '127.0.0.1', () => {
    process.send?.({ ready: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
}

function spawn(role: string, ...args: string[]): Promise<{ child: ChildProcess; address: string }> {
  const child = fork(fileURLToPath(import.meta.url), ['--role', role, ...args], {
    execArgv: process.execArgv,
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
    child.once('message', (m: { ready?: string }) =>
      m.ready ? resolve({ child, address: m.ready }) : undefined,
    );
  });
}

// --- load drivers ---

async function viaGateway(url: string, seconds: number, connections = CONCURRENCY): Promise<PhaseResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      { url: `${url}/ixo/entity/${ENTITY}`, connections, duration: seconds },
      (err: unknown) =>
        err ? reject(err instanceof Error ? err : new Error('autocannon failed')) : resolve(),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status === 200) latencies.push(ms);
      else errors += 1;
    });
    instance.on('reqError', () => (errors += 1));
  });
  return result(`gateway (HTTP) ×${connections}`, latencies, errors, (performance.now() - started) / 1000);
}

async function direct(address: string, seconds: number, callers = CONCURRENCY): Promise<PhaseResult> {
  const client = new EntityClient(address, credentials.createInsecure());
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  const caller = async (): Promise<void> => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const ok = await new Promise<boolean>((resolve) =>
        client.entity({ id: ENTITY }, (err) => resolve(!err)),
      );
      if (ok) latencies.push(performance.now() - t0);
      else errors += 1;
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  client.close();
  return result(`direct (gRPC) ×${callers}`, latencies, errors, (performance.now() - started) / 1000);
}

function result(name: string, latencies: number[], errors: number, seconds: number): PhaseResult {
  return {
    name,
    requests: latencies.length,
    errors,
    seconds,
    latenciesMs: Float64Array.from(latencies).sort(),
  };
}

const rps = (r: PhaseResult): number => r.requests / r.seconds;

const fmt = (values: number[], digits: number): string => values.map((v) => v.toFixed(digits)).join(' ');

interface Round {
  gw: PhaseResult;
  dr: PhaseResult;
  gw1: PhaseResult;
  dr1: PhaseResult;
  /** CPU time of the gateway process per request of the loaded gateway phase, microseconds. */
  gatewayCpuPerRequest: number;
}

function report(rounds: Round[]): boolean {
  const phases = (pick: (r: Round) => PhaseResult): PhaseResult[] => rounds.map(pick);
  console.table(
    [phases((r) => r.gw), phases((r) => r.dr), phases((r) => r.gw1), phases((r) => r.dr1)].map((runs) => ({
      phase: runs[0]?.name,
      'req/s': Math.round(median(runs.map(rps))),
      'p50 ms': median(runs.map((r) => percentile(r.latenciesMs, 50))).toFixed(3),
      'p99 ms': median(runs.map((r) => percentile(r.latenciesMs, 99))).toFixed(3),
      requests: runs.reduce((n, r) => n + r.requests, 0),
      errors: runs.reduce((n, r) => n + r.errors, 0),
    })),
  );
  const ratios = rounds.map((r) => rps(r.gw) / rps(r.dr));
  const p50 = (r: PhaseResult): number => percentile(r.latenciesMs, 50);
  const unloaded = rounds.map((r) => p50(r.gw1) - p50(r.dr1));
  const loaded = rounds.map((r) => p50(r.gw) - p50(r.dr));
  const verdict = (ok: boolean): string => (ok ? 'OK' : 'MISSED');
  const ratio = median(ratios);
  const overhead = median(unloaded);
  console.log(`Medians over ${rounds.length} rounds (per-round values in brackets).`);
  console.log(
    `gateway CPU per request (×${CONCURRENCY}): ${Math.round(median(rounds.map((r) => r.gatewayCpuPerRequest)))} µs`,
  );
  console.log(
    `gateway/direct throughput (×${CONCURRENCY}): ${ratio.toFixed(2)} [${fmt(ratios, 2)}] (target ≥ ${TARGET_THROUGHPUT_RATIO}) ${verdict(ratio >= TARGET_THROUGHPUT_RATIO)}`,
  );
  console.log(
    `p50 overhead, one request at a time: ${overhead.toFixed(3)} ms [${fmt(unloaded, 3)}] (target ≤ ${TARGET_P50_OVERHEAD_MS} ms) ${verdict(overhead <= TARGET_P50_OVERHEAD_MS)}`,
  );
  console.log(
    `p50 difference under load (×${CONCURRENCY}, includes queueing): ${median(loaded).toFixed(3)} ms [${fmt(loaded, 3)}]`,
  );
  return rounds.every((r) => [r.gw, r.dr, r.gw1, r.dr1].every((x) => x.errors === 0));
}

async function main(): Promise<void> {
  const role = process.argv.includes('--role') ? process.argv[process.argv.indexOf('--role') + 1] : undefined;
  if (role !== undefined) actAsMeasuredChild();
  if (role === 'node') return runNode();
  if (role === 'gateway') return runGateway(process.argv.at(-1) ?? '');

  console.log(
    `chain gateway bench: ${CONCURRENCY} concurrent, ${WARMUP_S}s warm-up, then ${ROUNDS} rounds of ` +
      `${DURATION_S}s per loaded phase and ${UNLOADED_S}s per unloaded phase; entity ${ENTITY}`,
  );
  const node = await spawn('node');
  const gateway = await spawn('gateway', node.address);
  try {
    await viaGateway(gateway.address, WARMUP_S);
    await direct(node.address, WARMUP_S);
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const cpuBefore = await cpuOf(gateway.child);
      const gw = await viaGateway(gateway.address, DURATION_S);
      const gatewayCpuPerRequest = ((await cpuOf(gateway.child)) - cpuBefore) / gw.requests;
      const dr = await direct(node.address, DURATION_S);
      // Unloaded latency: one request at a time, so the difference is the gateway's own added time rather
      // than queueing behind other requests.
      const gw1 = await viaGateway(gateway.address, UNLOADED_S, 1);
      const dr1 = await direct(node.address, UNLOADED_S, 1);
      rounds.push({ gw, dr, gw1, dr1, gatewayCpuPerRequest });
    }
    if (!report(rounds)) process.exitCode = 1;
  } finally {
    for (const child of [gateway.child, node.child]) {
      child.removeAllListeners('exit');
      child.kill();
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
