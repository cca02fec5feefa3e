// Helpers shared by the benchmark scripts: order statistics and the CPU time of a child server process.
import type { ChildProcess } from 'node:child_process';

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

/**
 * In a child server process: exit normally on SIGTERM (so `node --cpu-prof` writes its profile), and
 * answer the parent's `'cpu'` message with this process's user + system CPU time in microseconds.
 */
export function actAsMeasuredChild(): void {
  process.once('SIGTERM', () => process.exit(0));
  process.on('message', (m: unknown) => {
    if (m !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
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
