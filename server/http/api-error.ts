import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import type { ApiError } from '../contracts/errors.js';

/** Answers the gateway's JSON error (`ApiError`) with the request's id. */
export function sendApiError(res: Response, status: number, code: ApiError['code'], message: string): void {
  const body: ApiError = { code, message, requestId: res.locals.requestId };
  res.status(status).json(body);
}

/**
 * The same answer as {@link sendApiError}, header for header, on a response outside Express (a part's direct
 * handler, app.ts): what `res.status(status).json(body)` writes with the app's settings (no ETag).
 */
export function writeApiError(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: ApiError,
): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  if (req.method === 'HEAD') res.end();
  else res.end(text, 'utf8');
}
