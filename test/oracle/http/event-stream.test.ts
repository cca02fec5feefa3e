import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import {
  endEventStreams,
  openEventStream,
  type EventStream,
} from '../../../server/oracle/http/event-stream.js';
import { runEvent } from '../../../server/oracle/runs/event-log.js';

// The SSE writer on its own (server/oracle/http/event-stream.ts), on a real HTTP server: what a client reads
// (headers, frames, heartbeats, the end), which frames leave together, and the drain of one server's streams.

interface Harness {
  server: http.Server;
  port: number;
  /** The streams opened so far, in order, with the response each writes. */
  streams: { stream: EventStream; res: Response }[];
}

const open: http.Server[] = [];

afterEach(async () => {
  for (const server of open.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function harness(heartbeatMs = 60_000): Promise<Harness> {
  const streams: Harness['streams'] = [];
  const app = express();
  app.get('/events', (_req, res) => {
    streams.push({ stream: openEventStream(res, { heartbeatMs, headers: { 'x-run-id': 'run_1' } }), res });
  });
  const server = http.createServer(app);
  open.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, streams };
}

/** A client of one stream: its response (once the headers arrived), and everything read so far. */
interface Client {
  response: http.IncomingMessage;
  text: () => string;
  ended: Promise<void>;
  request: http.ClientRequest;
}

async function connect(h: Harness): Promise<Client> {
  const request = http.get({ host: '127.0.0.1', port: h.port, path: '/events', agent: false });
  const [response] = (await once(request, 'response')) as [http.IncomingMessage];
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => (text += chunk));
  const ended = new Promise<void>((resolve) => response.once('end', resolve));
  return { response, text: () => text, ended, request };
}

const message = (id: number, content: string) =>
  runEvent(id, 'message', { content, timestamp: '2026-11-28T00:00:00.000Z' });
const frame = (id: number, content: string): string =>
  `event: message\nid: ${id}\ndata: {"content":"${content}","timestamp":"2026-11-28T00:00:00.000Z"}\n\n`;
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

describe('openEventStream', () => {
  it('sends the streaming headers at the end of its first tick, before any frame', async () => {
    const h = await harness();
    const client = await connect(h);
    expect(client.response.statusCode).toBe(200);
    expect(client.response.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-run-id': 'run_1',
    });
    await sleep(50);
    expect(client.text()).toBe('');
  });

  it('writes the frames of one tick together, in order, and each later tick its own', async () => {
    const h = await harness();
    const client = await connect(h);
    const [{ stream, res }] = h.streams as [Harness['streams'][number]];
    const writes: string[] = [];
    const write = res.write.bind(res) as (chunk: string) => boolean;
    (res as { write: unknown }).write = (chunk: string) => {
      writes.push(chunk);
      return write(chunk);
    };
    stream.write(message(1, 'a'));
    stream.write(message(2, 'b'));
    stream.write(message(3, 'c'));
    expect(writes).toEqual([]);
    await tick();
    expect(writes).toEqual([frame(1, 'a') + frame(2, 'b') + frame(3, 'c')]);
    stream.write(message(4, 'd'));
    await tick();
    expect(writes).toEqual([frame(1, 'a') + frame(2, 'b') + frame(3, 'c'), frame(4, 'd')]);
    await until(() => client.text().length === writes.join('').length);
    expect(client.text()).toBe(writes.join(''));
  });

  it('ends the body on end(): what was queued goes first; later writes and a second end change nothing', async () => {
    const h = await harness();
    const client = await connect(h);
    const [{ stream }] = h.streams as [Harness['streams'][number]];
    stream.write(message(1, 'last'));
    stream.end();
    expect(stream.signal.aborted).toBe(true);
    stream.write(message(2, 'too late'));
    stream.end();
    await client.ended;
    expect(client.text()).toBe(frame(1, 'last'));
  });

  it("lets go of what the request no longer needs once the stream is open: the caller's tokens and Express's next", async () => {
    const h = await harness();
    const request = http.get({
      host: '127.0.0.1',
      port: h.port,
      path: '/events',
      agent: false,
      headers: { authorization: 'Bearer secret-invocation', 'x-ucan-delegation': 'secret-delegation' },
    });
    await once(request, 'response');
    const [{ res }] = h.streams as [Harness['streams'][number]];
    const req = res.req;
    expect(req.headers['authorization']).toBe('');
    expect(req.headers['x-ucan-delegation']).toBe('');
    expect(req.rawHeaders.join('\n')).not.toContain('secret');
    expect((req as { next?: unknown }).next).toBeUndefined();
    request.destroy();
  });

  it('aborts its signal when the client goes away', async () => {
    const h = await harness();
    const client = await connect(h);
    const [{ stream }] = h.streams as [Harness['streams'][number]];
    expect(stream.signal.aborted).toBe(false);
    client.request.destroy();
    await until(() => stream.signal.aborted);
  });
});

describe('heartbeats', () => {
  it('a quiet stream gets a heartbeat comment once per period, not more, not fewer', async () => {
    const h = await harness(100);
    const client = await connect(h);
    await sleep(650);
    const beats = client.text().split(': heartbeat\n\n');
    // Every byte is a heartbeat comment: six periods in 650 ms (the timer looks four times a period, so each
    // comes up to 25 ms late).
    expect(beats.every((rest) => rest === '')).toBe(true);
    expect(beats.length - 1).toBeGreaterThanOrEqual(4);
    expect(beats.length - 1).toBeLessThanOrEqual(6);
  });

  it('one stream ending leaves the heartbeats of the others going', async () => {
    const h = await harness(100);
    const first = await connect(h);
    const second = await connect(h);
    const [a] = h.streams as [Harness['streams'][number]];
    a.stream.end();
    await first.ended;
    const before = second.text().length;
    await sleep(350);
    expect(second.text().slice(before)).toMatch(/^(: heartbeat\n\n){2,4}$/);
  });
});

describe('endEventStreams', () => {
  it("ends every stream of the server it is given with a ': draining' comment, and no other server's", async () => {
    const h = await harness();
    const other = await harness();
    const clients = [await connect(h), await connect(h)];
    const elsewhere = await connect(other);
    const [, second] = h.streams as [Harness['streams'][number], Harness['streams'][number]];
    second.stream.write(message(7, 'queued'));
    endEventStreams(h.server);
    await Promise.all(clients.map((c) => c.ended));
    expect(clients.map((c) => c.text())).toEqual([': draining\n\n', `${frame(7, 'queued')}: draining\n\n`]);
    expect(h.streams.every((s) => s.stream.signal.aborted)).toBe(true);
    // The other server's stream goes on.
    const [kept] = other.streams as [Harness['streams'][number]];
    expect(kept.stream.signal.aborted).toBe(false);
    kept.stream.write(message(1, 'still here'));
    await until(() => elsewhere.text() === frame(1, 'still here'));
    // A stream that ended is not drained again; a server with none is a no-op.
    endEventStreams(h.server);
    endEventStreams(http.createServer());
  });
});
