import type { Response } from 'express';
import type { ApiError } from '../contracts/errors.js';

/** Answers the gateway's JSON error (`ApiError`) with the request's id. */
export function sendApiError(res: Response, status: number, code: ApiError['code'], message: string): void {
  const body: ApiError = { code, message, requestId: res.locals.requestId };
  res.status(status).json(body);
}
