import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON answer straight to the socket: serialised once, with Content-Length, and without
 * Express's `res.json` extras (ETag hashing, charset parsing) that cost more than the gateway's own work
 * on the hot path. Headers already set (request id, CORS, block height) are kept; HEAD gets no body.
 */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  sendJsonText(res, status, JSON.stringify(value));
}

/** {@link sendJson} of a value already written as JSON text. */
export function sendJsonText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
