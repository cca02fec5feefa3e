// `npm run bench:chain`: the chain query gateway's overhead over talking gRPC to the node directly.
//
// Three processes on loopback, like a deployment: the fixture node (a grpc-js server), the gateway (the
// chain router in express, one grpc-js channel to the node) and this one, which drives the load:
//   1. HTTP through the gateway: autocannon, GET /ixo/entity/<oracle DID>;
//   2. gRPC straight to the node: a closed loop of the same number of concurrent callers, same entity.
// Each phase warms up, then measures for a fixed time; latencies are kept in microseconds and the
// percentiles computed from the sorted samples (exact, and no undeclared dependency). A last pair of
// phases runs one request at a time, for the latency the gateway adds without queueing.
// Environment: BENCH_CONCURRENCY (10), BENCH_WARMUP_S (2), BENCH_DURATION_S (10), BENCH_UNLOADED_S (4).
// Exits non-zero only when requests fail; the targets are reported, not enforced.
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

const ENTITY = 'did:ixo:entity:oracle7d1e3c9a2b';
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 10);
const WARMUP_S = Number(process.env['BENCH_WARMUP_S'] ?? 2);
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 10);
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

const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0
    ? NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN);
const rps = (r: PhaseResult): number => r.requests / r.seconds;

function report(gw: PhaseResult, dr: PhaseResult, gw1: PhaseResult, dr1: PhaseResult): boolean {
  console.table(
    [gw, dr, gw1, dr1].map((r) => ({
      phase: r.name,
      'req/s': Math.round(rps(r)),
      'p50 ms': percentile(r.latenciesMs, 50).toFixed(3),
      'p99 ms': percentile(r.latenciesMs, 99).toFixed(3),
      requests: r.requests,
      errors: r.errors,
    })),
  );
  const ratio = rps(gw) / rps(dr);
  const overhead = percentile(gw.latenciesMs, 50) - percentile(dr.latenciesMs, 50);
  const unloaded = percentile(gw1.latenciesMs, 50) - percentile(dr1.latenciesMs, 50);
  const verdict = (ok: boolean): string => (ok ? 'OK' : 'MISSED');
  console.log(
    `gateway/direct throughput (×${CONCURRENCY}): ${ratio.toFixed(2)} (target ≥ ${TARGET_THROUGHPUT_RATIO}) ${verdict(ratio >= TARGET_THROUGHPUT_RATIO)}`,
  );
  console.log(
    `p50 overhead (×${CONCURRENCY}): ${overhead.toFixed(3)} ms (target ≤ ${TARGET_P50_OVERHEAD_MS} ms) ${verdict(overhead <= TARGET_P50_OVERHEAD_MS)}`,
  );
  console.log(
    `p50 overhead (×1, one request at a time): ${unloaded.toFixed(3)} ms (target ≤ ${TARGET_P50_OVERHEAD_MS} ms) ${verdict(unloaded <= TARGET_P50_OVERHEAD_MS)}`,
  );
  return [gw, dr, gw1, dr1].every((r) => r.errors === 0);
}

async function main(): Promise<void> {
  const role = process.argv[process.argv.indexOf('--role') + 1];
  if (process.argv.includes('--role') && role === 'node') return runNode();
  if (process.argv.includes('--role') && role === 'gateway') return runGateway(process.argv.at(-1) ?? '');

  console.log(
    `chain gateway bench: ${CONCURRENCY} concurrent, ${WARMUP_S}s warm-up + ${DURATION_S}s per phase, entity ${ENTITY}`,
  );
  const node = await spawn('node');
  const gateway = await spawn('gateway', node.address);
  try {
    await viaGateway(gateway.address, WARMUP_S);
    const gw = await viaGateway(gateway.address, DURATION_S);
    await direct(node.address, WARMUP_S);
    const dr = await direct(node.address, DURATION_S);
    // Unloaded latency: one request at a time, so the difference is the gateway's own added time rather
    // than queueing behind other requests.
    const gw1 = await viaGateway(gateway.address, UNLOADED_S, 1);
    const dr1 = await direct(node.address, UNLOADED_S, 1);
    if (!report(gw, dr, gw1, dr1)) process.exitCode = 1;
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
