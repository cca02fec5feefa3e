// Helpers shared by the benchmark scripts: order statistics and the CPU time of a child server process.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

/** The p-th percentile (0–100) of ascending samples; NaN when there are none. */
export const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0
    ? NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN);

/** The median of some values (the mean of the middle two for an even count); NaN when there are none. */
export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? NaN)
    : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
};

/** The heap and resident set of a process, in bytes (from `process.memoryUsage()`). */
export interface MemorySample {
  heapUsed: number;
  rss: number;
}

/**
 * In a child server process: exit normally on SIGTERM (so `node --cpu-prof` writes its profile), answer the
 * parent's `'cpu'` message with this process's user + system CPU time in microseconds, and its `'memory'`
 * message with its {@link MemorySample}, taken after a full garbage collection when the child runs with
 * `--expose-gc` (so the heap counts what is held, not what is waiting to be collected).
 */
export function actAsMeasuredChild(): void {
  process.once('SIGTERM', () => process.exit(0));
  // BENCH_HEAP_SNAPSHOT_DIR: a heap snapshot at every memory sample (for finding what a held stream keeps).
  const snapshots = process.env['BENCH_HEAP_SNAPSHOT_DIR'];
  if (snapshots) mkdirSync(snapshots, { recursive: true });
  let sample = 0;
  process.on('message', (m: unknown) => {
    if (m === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpuMicros: user + system });
    }
    if (m === 'memory') {
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      gc?.();
      const { heapUsed, rss } = process.memoryUsage();
      if (snapshots) writeHeapSnapshot(path.join(snapshots, `${process.pid}-${++sample}.heapsnapshot`));
      process.send?.({ memory: { heapUsed, rss } satisfies MemorySample });
    }
  });
}

/** The CPU time (microseconds) a child running {@link actAsMeasuredChild} has used so far. */
export function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: { cpuMicros?: number }): void => {
      if (m.cpuMicros === undefined) return;
      child.off('message', onMessage);
      resolve(m.cpuMicros);
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

/** The {@link MemorySample} of a child running {@link actAsMeasuredChild}. */
export function memoryOf(child: ChildProcess): Promise<MemorySample> {
  return new Promise((resolve) => {
    const onMessage = (m: { memory?: MemorySample }): void => {
      if (m.memory === undefined) return;
      child.off('message', onMessage);
      resolve(m.memory);
    };
    child.on('message', onMessage);
    child.send('memory');
  });
}

/** Stops the children (SIGTERM) and resolves once every one has exited; their `exit` listeners are dropped first. */
export function stopChildren(children: ChildProcess[]): Promise<void> {
  return Promise.all(
    children.map((child) => {
      child.removeAllListeners('exit');
      const exited =
        child.exitCode !== null || child.signalCode !== null
          ? Promise.resolve()
          : new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      return exited;
    }),
  ).then(() => undefined);
}
