import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Express } from 'express';

export interface InjectedRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Client address seen by the app (`req.socket.remoteAddress`). */
  remoteAddress?: string;
}

export interface InjectedResponse {
  status: number;
  headers: Record<string, unknown>;
  text: string;
}

/**
 * Runs one request through an Express app in process, without a socket or a listening server: a real
 * IncomingMessage carrying the body and a ServerResponse whose output is captured. Fast enough for
 * property tests with thousands of requests.
 */
export function inject(app: Express, request: InjectedRequest): Promise<InjectedResponse> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    Object.defineProperty(socket, 'remoteAddress', { value: request.remoteAddress ?? '127.0.0.1' });
    const req = new IncomingMessage(socket);
    req.method = request.method;
    req.url = request.url;
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    req.headers = {
      ...Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
      ...(body === undefined ? {} : { 'content-length': String(body.length) }),
    };
    if (body !== undefined && body.length > 0) req.push(body);
    req.push(null);

    const res = new ServerResponse(req);
    const chunks: Buffer[] = [];
    const collect = (chunk: unknown, encoding?: unknown): void => {
      if (typeof chunk === 'string') {
        chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
      } else if (chunk instanceof Uint8Array) {
        chunks.push(Buffer.from(chunk));
      }
    };
    res.write = ((chunk: unknown, encoding?: unknown) => {
      collect(chunk, encoding);
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: unknown, encoding?: unknown) => {
      collect(chunk, encoding);
      resolve({
        status: res.statusCode,
        headers: res.getHeaders(),
        text: Buffer.concat(chunks).toString('utf8'),
      });
      res.emit('finish');
      return res;
    }) as typeof res.end;
    try {
      app(req, res);
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
