import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from './logger.js';
import type { Part } from './part.js';

/** The longest a drain goes on accepting connections that were queued before it (see {@link acceptQueued}). */
const ACCEPT_QUEUED_MAX_MS = 200;

/**
 * How long, in a drain, a connection may stay silent (not one byte read since it was accepted) before it is
 * closed. Node counts such a connection busy, not idle (it guards its headers timeout), so without this one
 * speculative connection (a browser's or an HTTP client pool's pre-connect) holds the drain until its timeout.
 * A client that means to send a request sends it right after the connect.
 */
export const SILENT_CONNECTION_GRACE_MS = 500;

/** How often a drain closes the connections that have become idle or stayed silent. */
const SWEEP_MS = 50;

/** The state of the HTTP listener that a drain needs: each open connection and when it was accepted. */
export interface HttpConnections {
  readonly acceptedAt: ReadonlyMap<Socket, number>;
}

/** Tracks the connections of `http` from now on (one map entry each, removed when the connection closes). */
export function trackConnections(http: Server): HttpConnections {
  const acceptedAt = new Map<Socket, number>();
  // One listener for every connection (a socket closes once): no closure and no `once` wrapper per connection.
  function forget(this: Socket): void {
    acceptedAt.delete(this);
  }
  http.on('connection', (socket: Socket) => {
    acceptedAt.set(socket, Date.now());
    socket.on('close', forget);
  });
  return { acceptedAt };
}

const immediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Accepts the connections waiting in the listener's accept queue. libuv accepts one connection per pass of the
 * event loop's poll phase, so this passes until one accepts nothing (the queue is empty), for at most `maxMs`.
 */
async function acceptQueued(http: Server, maxMs: number): Promise<number> {
  let total = 0;
  let accepted = 0;
  const count = (): void => void accepted++;
  http.on('connection', count);
  const until = Date.now() + maxMs;
  try {
    // Into a check phase: every `setImmediate` set from there runs after the next poll phase.
    await immediate();
    do {
      total += accepted;
      accepted = 0;
      await immediate();
    } while (accepted > 0 && Date.now() < until);
    return total + accepted;
  } finally {
    http.off('connection', count);
  }
}

/**
 * Closes the connections that have read nothing for {@link SILENT_CONNECTION_GRACE_MS} since they were
 * accepted. One is closed only at the second sweep that finds it so: a poll phase ran in between, so bytes
 * that were waiting in the kernel while the process was busy have been read by then.
 */
function silentSweeper(connections: HttpConnections): () => number {
  const seenSilent = new WeakSet<Socket>();
  return () => {
    let closed = 0;
    const now = Date.now();
    for (const [socket, at] of connections.acceptedAt) {
      if (socket.bytesRead > 0 || now - at < SILENT_CONNECTION_GRACE_MS) continue;
      if (seenSilent.has(socket)) {
        socket.destroy();
        closed++;
      } else seenSilent.add(socket);
    }
    return closed;
  };
}

/** What a drain is told to do. */
export interface DrainOptions {
  /** Pre-stop delay: `/health` already answers 503, the listener still accepts (PRESTOP_DELAY_MS). */
  delayMs: number;
  /** The longest the requests in flight are waited for before the connections left are cut (DRAIN_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * Graceful drain of the HTTP server: the connections still queued in the kernel are accepted, then no new ones
 * (`close()`); `Connection: close` on every answer still given (app.ts); the parts' long-lived streams ended;
 * then a wait for the requests in flight, at most `timeoutMs`, after which the connections left are cut.
 * Sets `lifecycle.draining` at once (`/health` 503 `draining`).
 */
export async function drainHttp(
  http: Server,
  connections: HttpConnections,
  parts: Part[],
  lifecycle: { draining: boolean },
  { delayMs, timeoutMs }: DrainOptions,
  logger: Logger,
): Promise<void> {
  lifecycle.draining = true;
  if (delayMs > 0) {
    // Pre-stop: a balancer polling /health sees 503 and stops sending here before the listener closes.
    logger.info({ delayMs }, 'stopping: /health answers 503; draining after the pre-stop delay');
    await sleep(delayMs);
  }
  const started = Date.now();
  // Connections a client opened before this point may still wait in the kernel's accept queue (the process was
  // busy); closing the listener would reset them unread. They are accepted first.
  const queued = await acceptQueued(http, ACCEPT_QUEUED_MAX_MS);
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  // Keep-alive connections with no request in flight are closed now, and each one whose answer (begun
  // before the drain, so without `Connection: close`) has since been sent, at the next sweep. Node counts a
  // connection whose first request is not read yet as busy, not idle: one that stays silent is closed by the
  // silent sweep.
  http.closeIdleConnections();
  const closeSilent = silentSweeper(connections);
  let silent = 0;
  const sweep = setInterval(() => {
    http.closeIdleConnections();
    silent += closeSilent();
  }, SWEEP_MS);
  await Promise.all(
    parts.map((p) =>
      (p.drain?.() ?? Promise.resolve()).catch((err: unknown) =>
        logger.warn({ err, part: p.name }, 'drain: a part did not drain cleanly'),
      ),
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), Math.max(0, timeoutMs - (Date.now() - started)));
  });
  const timedOut = await Promise.race([closed.then(() => false), expired]);
  clearTimeout(timer);
  clearInterval(sweep);
  if (timedOut) {
    logger.warn({ timeoutMs }, 'drain: requests still in flight at the drain timeout; cutting them');
    http.closeAllConnections();
    await closed;
  } else {
    logger.info(
      { ms: Date.now() - started, acceptedFromQueue: queued, silentClosed: silent },
      'drain: every request finished',
    );
  }
}
