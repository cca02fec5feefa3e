import { createExpressEndpoints, initServer } from '@ts-rest/express';
import { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import type { ApiError } from '../../contracts/errors.js';
import { USSD_INVALID_INPUT_REPLY, USSD_UNAVAILABLE_REPLY, ussdContract } from '../../contracts/ussd.js';
import { maskPhone } from '../logger.js';
import { ussdBodyParsers } from './body-parsers.js';
import type { UssdSession } from './engine-types.js';
import type { UssdMetrics } from './metrics.js';
import type { SessionFlow } from './session-flow.js';
import type { SessionStore } from './session-store.js';

/** What {@link createUssdRouter} is built from; it knows nothing of menus. */
export interface UssdRouterDeps {
  flow: SessionFlow;
  sessions: SessionStore<UssdSession>;
  metrics: UssdMetrics;
  rateLimit: RequestHandler;
  operatorAuth: RequestHandler;
}

const s = initServer();

function sendPlain(res: Response, reply: string, outcome: 'invalid' | 'error'): void {
  res.locals.ussdOutcome = outcome;
  res.status(200).type('text/plain').send(reply);
}

function apiError(res: Response, status: number, code: ApiError['code'], message: string): void {
  const body: ApiError = { code, message, requestId: res.locals.requestId };
  res.status(status).json(body);
}

/** Body-parser errors carry a 4xx status (bad JSON 400, too large 413, bad charset 415): the client's fault. */
function isClientError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * `POST /api/ussd`, `GET /api/ussd/debug/:sessionId` and `GET /api/ussd/sessions`, implemented against
 * `ussdContract`. The session endpoint always answers HTTP 200 plain text (`CON …`/`END …`), including
 * for every invalid request and every failure, except the rate limit's 429; nothing reaches the app's
 * JSON error handler from it.
 */
export function createUssdRouter(deps: UssdRouterDeps): Router {
  const { flow, sessions, metrics, rateLimit, operatorAuth } = deps;

  const routes = s.router(ussdContract, {
    session: {
      middleware: [metrics.track('session'), rateLimit, ...ussdBodyParsers()],
      handler: async ({ body, res }) => {
        try {
          const reply = await flow.handle(body);
          res.locals.ussdOutcome = reply.startsWith('CON ') ? 'CON' : 'END';
          return { status: 200, body: reply };
        } catch (err) {
          res.locals.logger.error(
            { err, sessionId: body.sessionId, phone: maskPhone(body.phoneNumber) },
            'ussd request failed; answered unavailable',
          );
          res.locals.ussdOutcome = 'error';
          return { status: 200, body: USSD_UNAVAILABLE_REPLY };
        }
      },
    },
    debug: {
      middleware: [metrics.track('debug'), rateLimit, operatorAuth],
      handler: async ({ params, res }) => {
        const [session, activeSessions] = await Promise.all([
          sessions.get(params.sessionId),
          sessions.list(),
        ]);
        if (session === undefined) {
          const message = 'Session not found or expired. Dial again.';
          return {
            status: 404,
            body: { code: 'session_not_found', message, requestId: res.locals.requestId },
          };
        }
        const { sessionId, phoneNumber, message, isAuthenticated, state } = session;
        return {
          status: 200,
          body: {
            sessionId,
            debugInfo: {
              state,
              context: { sessionId, phoneNumber, message, isAuthenticated },
              status: 'active',
            },
            activeSessions,
          },
        };
      },
    },
    sessions: {
      middleware: [metrics.track('sessions'), rateLimit, operatorAuth],
      handler: async () => {
        const activeSessions = await sessions.list();
        return { status: 200, body: { activeSessions, count: activeSessions.length } };
      },
    },
  });

  const router = Router();
  createExpressEndpoints(ussdContract, routes, router, {
    logInitialization: false,
    requestValidationErrorHandler: (_err, req, res) => {
      if (req.tsRestRoute === ussdContract.session) sendPlain(res, USSD_INVALID_INPUT_REPLY, 'invalid');
      else apiError(res, 400, 'bad_request', 'Invalid request parameters.');
    },
  });

  const onError: ErrorRequestHandler = (err: unknown, req, res, next) => {
    const route = (req as { tsRestRoute?: unknown }).tsRestRoute;
    const isOperatorRoute = route === ussdContract.debug || route === ussdContract.sessions;
    if (res.headersSent || (route !== ussdContract.session && !isOperatorRoute)) {
      next(err);
      return;
    }
    if (route === ussdContract.session && isClientError(err)) {
      sendPlain(res, USSD_INVALID_INPUT_REPLY, 'invalid');
      return;
    }
    res.locals.logger.error({ err }, 'ussd route failed; answered unavailable');
    if (isOperatorRoute) apiError(res, 503, 'unavailable', 'Session store unavailable; retry later.');
    else sendPlain(res, USSD_UNAVAILABLE_REPLY, 'error');
  };
  router.use(onError);
  return router;
}
