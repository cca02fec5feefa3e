import { performance } from 'node:perf_hooks';
import { Stream } from 'node:stream';
import type { Response } from 'express';
import { encode, encodeComment } from 'eventsource-encoder';
import type { RunEventRecord } from '../runs/event-log.js';
import type { StopSignal } from '../runs/run-follower.js';
import { AUTH_HEADERS } from '../../../contracts/oracle.js';

/**
 * What the handler returns as the answer's body. ts-rest pipes a body that is a `Stream` into the response; the
 * frames are written to the response directly instead, so this one's `pipe` does nothing. (A PassThrough in
 * between cost each open stream two stream states, a buffer and the pipe's listeners on both sides.)
 */
class WrittenDirectly extends Stream {
  override pipe<T extends NodeJS.WritableStream>(destination: T): T {
    return destination;
  }
}

/** Stateless, so one serves every stream. */
const WRITTEN_DIRECTLY = new WrittenDirectly();

/** An open `text/event-stream` answer. */
export interface EventStream {
  /** The body to hand to ts-rest (a `Stream`, so it sends no body of its own; the frames go to `res`). */
  body: Stream;
  /** Aborted when the client goes away or the stream ends (one listener: the stream's follower). */
  signal: StopSignal;
  write: (record: RunEventRecord) => void;
  end: () => void;
}

/** The request headers an open stream no longer needs: the caller's tokens (authenticated already), ~600 bytes each. */
const SPENT_HEADERS: ReadonlySet<string> = new Set([AUTH_HEADERS.invocation, AUTH_HEADERS.delegation]);

/**
 * Lets go of what the request of a stream kept open no longer needs: Express's `next` (its router's continuation,
 * with the closures of every layer it passed: the handler has answered, nothing calls it) and the caller's tokens.
 */
function releaseRequest(req: Response['req']): void {
  (req as { next?: unknown }).next = undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (SPENT_HEADERS.has((raw[i] as string).toLowerCase())) raw[i + 1] = '';
  const { headers } = req;
  for (const name of SPENT_HEADERS) if (headers[name] !== undefined) headers[name] = '';
}

/**
 * An open stream's end, as its follower hears it: what it reads of an AbortSignal, without an AbortSignal's cost
 * (in Node 20 each one has a hidden class of its own and two maps, ~0.8 KB). It takes one listener.
 */
class StreamEnd implements StopSignal {
  aborted = false;
  #listener: (() => void) | undefined = undefined;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.#listener && this.#listener !== listener) throw new Error('a stream end takes one listener');
    this.#listener = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.#listener === listener) this.#listener = undefined;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }
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

/** An open stream's state, as the shared flush and heartbeat see it. */
interface OpenStream {
  res: Response;
  /** Its headers are not sent yet: they leave with its first frames, or alone at the end of its first tick. */
  headersPending: boolean;
  /** Frames written since the last flush. */
  pending: string[];
  /** When its next heartbeat is due (ms, performance clock). */
  heartbeatDue: number;
}

/**
 * Frames written in one turn of the event loop leave together: one write per stream with frames, after every
 * stream's frames of that turn are queued (one `setImmediate` for all of them, however many streams are open).
 */
const dirty = new Set<OpenStream>();
let flushScheduled = false;

function flushAll(): void {
  flushScheduled = false;
  for (const stream of dirty) flush(stream);
  dirty.clear();
}

/** Node's symbol for a response's list of headers (found on first use; null: this Node has none). */
let kOutHeaders: symbol | null | undefined;

/**
 * Lets go of the list of headers Node keeps after sending them (`getHeader` answers undefined from then on): a
 * held stream's headers are in the response's `_header` already, and the list costs about 1 KB more.
 */
function dropSentHeaders(res: Response): void {
  kOutHeaders ??= Object.getOwnPropertySymbols(res).find((s) => s.description === 'kOutHeaders') ?? null;
  if (kOutHeaders && res.headersSent) (res as unknown as Record<symbol, unknown>)[kOutHeaders] = null;
}

function flush(stream: OpenStream): void {
  const { pending, res } = stream;
  const first = stream.headersPending;
  stream.headersPending = false;
  if (pending.length > 0) {
    const chunk = pending.length === 1 ? (pending[0] as string) : pending.join('');
    stream.pending = [];
    // A response whose client went away takes no more frames (its 'close' ends the stream).
    if (!res.writableEnded && !res.destroyed) res.write(chunk);
  } else if (first) {
    // Nothing to say in the stream's first tick (a re-join waiting for the next event): headers alone.
    res.flushHeaders();
  }
  if (first) dropSentHeaders(res);
}

function queue(stream: OpenStream, frame: string): void {
  stream.pending.push(frame);
  dirty.add(stream);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushAll);
  }
}

/**
 * One heartbeat timer per period for every open stream (not one timer per stream): it ticks four times a period
 * and sends each stream whose period has passed since it opened (or since its last heartbeat) a comment.
 */
const heartbeats = new Map<number, { streams: Set<OpenStream>; timer: NodeJS.Timeout }>();
const HEARTBEAT_COMMENT = encodeComment('heartbeat');

function startHeartbeat(stream: OpenStream, periodMs: number): () => void {
  let beat = heartbeats.get(periodMs);
  if (!beat) {
    const streams = new Set<OpenStream>();
    const timer = setInterval(
      () => {
        const now = performance.now();
        for (const s of streams) {
          if (s.heartbeatDue > now) continue;
          s.heartbeatDue = now + periodMs;
          queue(s, HEARTBEAT_COMMENT);
        }
      },
      Math.max(1, Math.floor(periodMs / 4)),
    );
    timer.unref();
    beat = { streams, timer };
    heartbeats.set(periodMs, beat);
  }
  const own = beat;
  stream.heartbeatDue = performance.now() + periodMs;
  own.streams.add(stream);
  return () => {
    own.streams.delete(stream);
    if (own.streams.size === 0) {
      clearInterval(own.timer);
      heartbeats.delete(periodMs);
    }
  };
}

/**
 * Starts a server-sent events answer: the streaming headers (no caching, no proxy buffering), frames of
 * `id` / `event` / one-line JSON `data` (framed by eventsource-encoder; the frames of one event-loop turn are
 * written together, see {@link queue}), and a heartbeat comment every `heartbeatMs` so proxies keep the
 * connection open (one shared timer, see {@link startHeartbeat}).
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

  const ended = new StreamEnd();
  // The headers leave with the first frames (one write, not two), at the latest at the end of this tick.
  const stream: OpenStream = { res, headersPending: true, pending: [], heartbeatDue: 0 };
  dirty.add(stream);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushAll);
  }
  const stopHeartbeat = startHeartbeat(stream, options.heartbeatMs);
  const server = serverOf(res);
  const end = (): void => {
    if (ended.aborted) return;
    if (server) openStreams.get(server)?.delete(drainEnd);
    stopHeartbeat();
    dirty.delete(stream);
    flush(stream);
    ended.abort();
    if (!res.writableEnded) res.end();
  };
  const drainEnd = (): void => {
    if (ended.aborted) return;
    stream.pending.push(encodeComment('draining'));
    end();
  };
  if (server) {
    let streams = openStreams.get(server);
    if (!streams) openStreams.set(server, (streams = new Set()));
    streams.add(drainEnd);
  }
  res.once('close', end);
  releaseRequest(res.req);
  return {
    body: WRITTEN_DIRECTLY,
    signal: ended,
    write: (record) => {
      if (ended.aborted) return;
      queue(stream, encode({ id: record.id, event: record.event, data: JSON.stringify(record.data) }));
    },
    end,
  };
}
