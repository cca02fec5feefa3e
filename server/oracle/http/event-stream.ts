import { PassThrough } from 'node:stream';
import type { Response } from 'express';
import { encode, encodeComment } from 'eventsource-encoder';
import type { RunEventRecord } from '../runs/event-log.js';

/** An open `text/event-stream` answer. */
export interface EventStream {
  /** The body to hand to the framework (it pipes it into the response). */
  body: PassThrough;
  /** Aborted when the client goes away or the stream ends. */
  signal: AbortSignal;
  write: (record: RunEventRecord) => void;
  end: () => void;
}

/** The event streams open on each HTTP server, ended by {@link endEventStreams} when that server drains. */
const openStreams = new WeakMap<object, Set<() => void>>();

/** The HTTP server a response is written through (Node sets `socket.server` on accepted sockets). */
function serverOf(res: Response): object | undefined {
  return (res.req.socket as { server?: object } | null)?.server;
}

/**
 * Ends every event stream open on `http` (the server is draining): each gets a `: draining` comment and a
 * clean end of its body. The runs they followed go on and stay re-joinable (`Last-Event-ID`), on this
 * instance's successor or another one.
 */
export function endEventStreams(http: object): void {
  const streams = openStreams.get(http);
  if (!streams) return;
  for (const end of [...streams]) end();
}

/**
 * Starts a server-sent events answer: the streaming headers (no caching, no proxy buffering), frames of
 * `id` / `event` / one-line JSON `data` (framed by eventsource-encoder; the frames of one event-loop turn are
 * written together), and a heartbeat comment every
 * `heartbeatMs` so proxies keep the connection open.
 */
export function openEventStream(
  res: Response,
  options: { heartbeatMs: number; headers?: Record<string, string> },
): EventStream {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache, no-transform');
  // No hop-by-hop `Connection` header: Node sets it from the request (a proxy's `Connection: close` must close
  // the connection after the stream, or the proxy's next request on it is answered 400).
  res.setHeader('x-accel-buffering', 'no');
  for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
  res.flushHeaders();

  const body = new PassThrough();
  const controller = new AbortController();
  // Frames written in one turn of the event loop leave in one write (a model streaming fast emits many).
  let pending: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const flush = (): void => {
    scheduled = undefined;
    if (pending.length === 0) return;
    const chunk = pending.length === 1 ? (pending[0] as string) : pending.join('');
    pending = [];
    body.write(chunk);
  };
  const queue = (frame: string): void => {
    pending.push(frame);
    scheduled ??= setImmediate(flush);
  };
  const heartbeat = setInterval(() => queue(encodeComment('heartbeat')), options.heartbeatMs);
  heartbeat.unref();
  const server = serverOf(res);
  const end = (): void => {
    if (controller.signal.aborted) return;
    if (server) openStreams.get(server)?.delete(drainEnd);
    clearInterval(heartbeat);
    if (scheduled) clearImmediate(scheduled);
    flush();
    controller.abort();
    body.end();
  };
  const drainEnd = (): void => {
    if (controller.signal.aborted) return;
    pending.push(encodeComment('draining'));
    end();
  };
  if (server) {
    let streams = openStreams.get(server);
    if (!streams) openStreams.set(server, (streams = new Set()));
    streams.add(drainEnd);
  }
  res.once('close', end);
  return {
    body,
    signal: controller.signal,
    write: (record) => {
      if (controller.signal.aborted) return;
      queue(encode({ id: record.id, event: record.event, data: JSON.stringify(record.data) }));
    },
    end,
  };
}
