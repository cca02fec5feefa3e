import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The status of `GET path` on a loopback port, or undefined while nothing answers. A connection of its own
 * (no keep-alive), so polling never holds a server open at shutdown.
 */
export function statusOf(port: number, path: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
      .on('error', () => resolve(undefined));
  });
}

/** Waits until a server started as a child process answers `GET path` with 200; fails if it exits first. */
export async function untilServing(
  port: number,
  child: ChildProcess,
  { path = '/health', ms = 60_000 }: { path?: string; ms?: number } = {},
): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await statusOf(port, path)) !== 200) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    if (Date.now() > deadline) throw new Error(`no 200 from ${path} on ${port} after ${ms} ms`);
    await sleep(100);
  }
}
