// A lean server-sent events client for the benchmarks: node:http with a keep-alive agent, frames cut at the
// blank line that ends them, so the load driver spends as little CPU per event as it can (it shares the
// machine with the servers it measures). It reads every frame but parses only the event name.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** One event frame as it came over the wire (`event: …\nid: …\ndata: …`, without the blank line). */
export interface Frame {
  event: string;
  raw: string;
}

/** How a stream went. Times are milliseconds since the request was started. */
export interface StreamOutcome {
  status: number;
  /** Event frames read (comments such as `: heartbeat` are not events). */
  events: number;
  firstEvent: string | undefined;
  firstEventMs: number;
  endMs: number;
  /** The raw `done` frame, when the stream had one. */
  done: string | undefined;
  /** Why the stream counts as failed (status, no `done`, a network error); undefined when it did not. */
  error: string | undefined;
}

/** An agent that keeps one connection per concurrent caller and never queues (each stream holds one). */
export const newAgent = (): Agent => new Agent({ keepAlive: true, maxSockets: Infinity });

/**
 * Sends a request and reads its answer as an event stream to the end. `onFrame` sees each event frame as it
 * arrives (with the time since the start); `keep` keeps the raw frames (recording a turn).
 */
export function readStream(options: {
  agent: Agent;
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  onFrame?: (frame: Frame, ms: number) => void;
  keep?: Frame[];
}): Promise<StreamOutcome> {
  const { url, body } = options;
  const { hostname, port } = new URL(url);
  const started = performance.now();
  const outcome: StreamOutcome = {
    status: 0,
    events: 0,
    firstEvent: undefined,
    firstEventMs: NaN,
    endMs: NaN,
    done: undefined,
    error: undefined,
  };
  return new Promise((resolve) => {
    const finish = (error?: string): void => {
      if (!Number.isNaN(outcome.endMs)) return;
      outcome.endMs = performance.now() - started;
      outcome.error = error ?? (outcome.done === undefined ? 'the stream ended without done' : undefined);
      resolve(outcome);
    };
    const req = request(
      {
        agent: options.agent,
        hostname,
        port,
        method: options.method,
        path: options.path,
        headers: {
          ...options.headers,
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (res) => {
        outcome.status = res.statusCode ?? 0;
        if (outcome.status !== 200) {
          res.resume();
          res.once('end', () => finish(`HTTP ${outcome.status}`));
          return;
        }
        res.setEncoding('utf8');
        let pending = '';
        res.on('data', (chunk: string) => {
          pending += chunk;
          let cut = pending.indexOf('\n\n');
          while (cut !== -1) {
            const raw = pending.slice(0, cut);
            pending = pending.slice(cut + 2);
            cut = pending.indexOf('\n\n');
            if (!raw.startsWith('event: ')) continue; // a comment (heartbeat)
            const ms = performance.now() - started;
            const event = raw.slice(7, raw.indexOf('\n'));
            if (outcome.events++ === 0) {
              outcome.firstEvent = event;
              outcome.firstEventMs = ms;
            }
            if (event === 'done') outcome.done = raw;
            options.keep?.push({ event, raw });
            options.onFrame?.({ event, raw }, ms);
          }
        });
        res.once('end', () => finish());
        res.once('error', (err) => finish(err.message));
        res.once('close', () => finish('the connection closed before the end'));
      },
    );
    req.once('error', (err) => finish(err.message));
    req.end(body);
  });
}
