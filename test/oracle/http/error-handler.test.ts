import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { RequestValidationError } from '@ts-rest/express';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../../server/logger.js';
import { AuthError } from '../../../server/oracle/auth/auth-error.js';
import { oracleErrorHandler } from '../../../server/oracle/http/oracle-error.js';
import {
  notFound,
  OracleHttpError,
  roomNotFound,
  runNotFound,
} from '../../../server/oracle/oracle-http-error.js';
import { BadCursorError } from '../../../server/oracle/store/messages.js';

// The agent service's one error handler on a real Express app: every kind of error a route can throw, and the
// exact answer a client gets for it (status, body, Retry-After), including the dependency failures that must be
// a 503 and not a 500.

const errors = new Map<string, () => unknown>();
let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use((req, res, next) => {
    res.locals['requestId'] = 'req-1';
    res.locals['logger'] = createLogger('silent');
    next();
  });
  app.get('/throw/:name', (req) => {
    throw errors.get(req.params.name)?.();
  });
  app.get('/after-headers', (_req, res, next) => {
    res.status(200).write('partial');
    next(new Error('late'));
  });
  app.use(oracleErrorHandler);
  // What Express does with an error the handler passes on.
  app.use(((err, _req, res, _next) => {
    res.end(`|passed on: ${(err as Error).message}`);
  }) as express.ErrorRequestHandler);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function answerTo(
  error: () => unknown,
): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const name = `e${errors.size}`;
  errors.set(name, error);
  const response = await fetch(`${base}/throw/${name}`);
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    retryAfter: response.headers.get('retry-after'),
  };
}

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('oracleErrorHandler', () => {
  it('a capability-token failure: 401 with its code and message', async () => {
    expect(await answerTo(() => new AuthError('auth_expired'))).toEqual({
      status: 401,
      body: {
        code: 'auth_expired',
        message: 'The capability token has expired; mint a new one.',
        statusCode: 401,
        requestId: 'req-1',
      },
      retryAfter: null,
    });
  });

  it('a declared refusal: its status, code, message and extra fields; a limit also says Retry-After', async () => {
    expect(
      await answerTo(
        () => new OracleHttpError(402, 'payment_required', 'Pay.', { outstandingClaims: ['claim_1'] }),
      ),
    ).toEqual({
      status: 402,
      body: {
        code: 'payment_required',
        message: 'Pay.',
        statusCode: 402,
        requestId: 'req-1',
        outstandingClaims: ['claim_1'],
      },
      retryAfter: null,
    });
    expect(
      await answerTo(() => new OracleHttpError(429, 'rate_limited', 'Slow down.', { retryAfter: 7 })),
    ).toMatchObject({ status: 429, body: { code: 'rate_limited', retryAfter: 7 }, retryAfter: '7' });
    expect(await answerTo(() => notFound())).toMatchObject({
      status: 404,
      body: { code: 'session_not_found', message: 'Chat session not found.' },
    });
    expect(await answerTo(() => runNotFound())).toMatchObject({
      status: 404,
      body: { code: 'run_not_found', message: 'Run not found.' },
    });
    expect(await answerTo(() => roomNotFound())).toMatchObject({
      status: 404,
      body: { code: 'room_not_found', message: 'Room not found.' },
    });
  });

  it('a cursor this service did not give out: 400', async () => {
    expect(await answerTo(() => new BadCursorError('bad'))).toMatchObject({
      status: 400,
      body: { code: 'bad_request', message: 'The cursor is not one this service gave out.' },
    });
  });

  it('a contract validation failure: 400 naming the fields (at most five a part), never the values', async () => {
    const issues = (schema: z.ZodTypeAny, value: unknown) => {
      const result = schema.safeParse(value);
      return result.success ? null : result.error;
    };
    const body = issues(
      z.object({
        a: z.string(),
        b: z.object({ c: z.number() }),
        d: z.number(),
        e: z.number(),
        f: z.number(),
        g: z.number(),
      }),
      { a: 1, b: { c: 'secret-value' } },
    );
    const query = issues(z.object({ limit: z.number() }), {});
    const path = issues(z.object({ id: z.string().min(3) }), { id: 'x' });
    const headers = issues(z.string(), 5);
    const answer = await answerTo(() => new RequestValidationError(path, headers, query, body));
    expect(answer.status).toBe(400);
    expect(answer.body['code']).toBe('bad_request');
    expect(answer.body['message']).toBe(
      'Invalid request: body.a: Expected string, received number; body.b.c: Expected number, received string; ' +
        'body.d: Required; body.e: Required; body.f: Required; query.limit: Required; ' +
        'path.id: String must contain at least 3 character(s); headers: Expected string, received number',
    );
    expect(JSON.stringify(answer.body)).not.toContain('secret-value');
    expect((await answerTo(() => new RequestValidationError(null, null, null, null))).body['message']).toBe(
      'Invalid request.',
    );
  });

  it("a body parser's refusals: 413 payload_too_large, any other 4xx a malformed body", async () => {
    expect(await answerTo(() => Object.assign(new Error('too big'), { status: 413 }))).toMatchObject({
      status: 413,
      body: { code: 'payload_too_large', message: 'The request body is too large for this oracle.' },
    });
    for (const status of [400, 415, 499]) {
      expect(await answerTo(() => Object.assign(new Error('x'), { status }))).toMatchObject({
        status,
        body: { code: 'bad_request', message: 'Malformed request body.', statusCode: status },
      });
    }
  });

  it('an unreachable database or Redis: 503 unavailable, with Retry-After (2 s unless the route sets it)', async () => {
    const outages = [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      withCode('read ECONNRESET', 'ECONNRESET'),
      withCode('timeout', 'ETIMEDOUT'),
      withCode('write EPIPE', 'EPIPE'),
      withCode('getaddrinfo ENOTFOUND db', 'ENOTFOUND'),
      withCode('getaddrinfo EAI_AGAIN db', 'EAI_AGAIN'),
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('connection failure', '08006'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new Error('Connection is closed.'),
      new Error('database ping timed out after 2000 ms'),
    ];
    for (const err of outages) {
      expect(await answerTo(() => err), err.message).toMatchObject({
        status: 503,
        body: {
          code: 'unavailable',
          message: 'A dependency of the service is unreachable; try again shortly.',
          statusCode: 503,
          retryAfter: 2,
        },
        retryAfter: '2',
      });
    }
    // A declared 503 without one (the model failed) gets it too; one that says its own keeps it.
    expect(
      await answerTo(() => new OracleHttpError(503, 'unavailable', 'The model failed to answer; try again.')),
    ).toMatchObject({ status: 503, body: { retryAfter: 2 }, retryAfter: '2' });
    expect(
      await answerTo(() => new OracleHttpError(503, 'unavailable', 'Busy.', { retryAfter: 9 })),
    ).toMatchObject({ status: 503, body: { retryAfter: 9 }, retryAfter: '9' });
  });

  it('anything else: 500 internal, nothing of the error in the answer', async () => {
    const others = [
      new Error('boom: secret detail'),
      withCode('duplicate key', '23505'),
      withCode('x', 'XECONNREFUSED'),
      withCode('x', '4057P'),
      withCode('x', 'E08'),
      Object.assign(new Error('x'), { status: 500 }),
      Object.assign(new Error('x'), { status: 399 }),
      Object.assign(new Error('x'), { status: '400' }),
      'a string',
      { code: 42 },
    ];
    for (const err of others) {
      const answer = await answerTo(() => err);
      expect(answer, JSON.stringify(err)).toEqual({
        status: 500,
        body: {
          code: 'internal',
          message: 'Internal error; see the server log under this request id.',
          statusCode: 500,
          requestId: 'req-1',
        },
        retryAfter: null,
      });
    }
  });

  it('after the headers went out: passes the error on instead of answering twice', async () => {
    const response = await fetch(`${base}/after-headers`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('partial|passed on: late');
  });
});
