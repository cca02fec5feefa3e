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
  res.setHeader('connection', 'keep-alive');
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
  const end = (): void => {
    if (controller.signal.aborted) return;
    clearInterval(heartbeat);
    if (scheduled) clearImmediate(scheduled);
    flush();
    controller.abort();
    body.end();
  };
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
