import { createExpressEndpoints, initServer } from '@ts-rest/express';
import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { sendApiError } from '../../http/api-error.js';
import { runMiddleware } from '../../http/run-middleware.js';
import { findUnsafeText, isStorableText } from '../../../contracts/unsafe-text.js';
import { USSD_SESSION_ID_MAX, ussdContract, type UssdRequest } from '../../../contracts/ussd.js';
import { maskPhone } from '../../logger.js';
import { raiseBodyError, ussdBodyParsers } from './body-parsers.js';
import type { UssdSession } from '../engine/types.js';
import { UssdError } from '../ussd-error.js';
import type { UssdMetrics } from './metrics.js';
import type { SessionFlow } from '../session/session-flow.js';
import type { SessionStore } from '../session/session-store.js';

/** What {@link createUssdRouter} is built from; it knows nothing of menus. */
export interface UssdRouterDeps {
  flow: SessionFlow;
  sessions: SessionStore<UssdSession>;
  metrics: UssdMetrics;
  rateLimit: RequestHandler;
  /** Who may call the session endpoint (see aggregator-auth.ts); first, before the body is read. */
  aggregatorAuth: RequestHandler;
  operatorAuth: RequestHandler;
}

const s = initServer();

/** A failure of the session endpoint, answered as the spec says: HTTP 200 plain text (see {@link UssdError}). */
function sendPlain(res: Response, error: UssdError): void {
  res.locals.ussdOutcome = error.answer.outcome;
  res.status(200).type('text/plain').send(error.answer.reply);
}

/** Body-parser errors (raw-body) of a body shorter than its Content-Length, or a client that went away. */
const CUT_SHORT_TYPES = new Set(['request.aborted', 'request.size.invalid']);
function isCutShort(err: unknown): boolean {
  const type = (err as { type?: unknown } | null)?.type;
  return typeof type === 'string' && CUT_SHORT_TYPES.has(type);
}

/** The session id of a body that failed validation, when it is one a session can have. */
function sessionIdOf(body: unknown): string | undefined {
  const id = (body as { sessionId?: unknown } | null | undefined)?.sessionId;
  return typeof id === 'string' && id.length > 0 && id.length <= USSD_SESSION_ID_MAX && isStorableText(id)
    ? id
    : undefined;
}

/** The content type of every session reply, as ts-rest and Express answer the contract's `text/plain`. */
const PLAIN_TEXT = 'text/plain; charset=utf-8';

/** What {@link createUssdRouter} makes: the Express router, and the session endpoint on its own. */
export interface UssdRoutes {
  router: Router;
  /**
   * `POST /api/ussd` without Express's routing and ts-rest's (the part's direct handler, see server/app.ts), on
   * a request started with Express's methods: the same middleware, contract validation, handler and replies as
   * the router's session route, byte for byte.
   */
  session: (req: Request, res: Response) => void;
}

/**
 * `POST /api/ussd`, `GET /api/ussd/debug/:sessionId` and `GET /api/ussd/sessions`, implemented against
 * `ussdContract`. The session endpoint always answers HTTP 200 plain text (`CON …`/`END …`), including
 * for every invalid request and every failure, except the rate limit's 429 and a caller that is not the
 * aggregator (401/403, aggregator-auth.ts); nothing reaches the app's JSON error handler from it.
 */
export function createUssdRouter(deps: UssdRouterDeps): UssdRoutes {
  const { flow, sessions, metrics, rateLimit, aggregatorAuth, operatorAuth } = deps;
  const sessionMiddleware = [
    metrics.track('session'),
    aggregatorAuth,
    ...ussdBodyParsers(),
    rateLimit,
    raiseBodyError,
    ((req, res, next) => {
      // A NUL or a lone surrogate in any field is invalid input (no handset sends one; issue 36): the same
      // check as the agent service's routes, here and not in the contract, whose OpenAPI pattern clients in
      // other languages could not read (Perl has no `\u` escapes). A plain function: a zod refinement costs
      // about 0.8 µs a field on every dial.
      const problem = findUnsafeText(req.body, 'body');
      if (problem === undefined) {
        next();
        return;
      }
      invalidBody(new Error(problem), req, res);
    }) satisfies RequestHandler,
  ];

  /** The session handler: the reply to a valid body, or the failure reply of what went wrong. */
  const answer = async (body: UssdRequest, res: Response): Promise<string> => {
    try {
      const reply = await flow.handle(body, res.locals.logger);
      res.locals.ussdOutcome = reply.startsWith('CON ') ? 'CON' : 'END';
      return reply;
    } catch (err) {
      const error = UssdError.from(err);
      res.locals.logger.error(
        {
          err: error.cause ?? error,
          code: error.code,
          sessionId: body.sessionId,
          phone: maskPhone(body.phoneNumber),
        },
        'ussd request failed',
      );
      res.locals.ussdOutcome = error.answer.outcome;
      return error.answer.reply;
    }
  };

  /** A body that failed the contract: the invalid-input END, which closes the session at the gateway, so ours too (spec 3). */
  const invalidBody = (err: unknown, req: Request, res: Response): void => {
    const error = new UssdError('invalid_input', 'request failed validation', { cause: err });
    const sessionId = sessionIdOf(req.body);
    if (sessionId === undefined) {
      sendPlain(res, error);
      return;
    }
    void flow
      .close(sessionId)
      .catch((closeErr: unknown) => {
        res.locals.logger.warn(
          { err: closeErr, sessionId },
          'ussd: closing the session after invalid input failed',
        );
      })
      .finally(() => sendPlain(res, error));
  };

  /** An error of the session route's middleware (a body parser's, the rate limiter's): its plain-text reply. */
  const sessionError = (err: unknown, res: Response): void => {
    const error = UssdError.from(err);
    if (isCutShort(err)) {
      // The client's fault (it went away, or sent less than its Content-Length): not a server failure.
      res.locals.logger.info(
        {
          type: (err as { type?: unknown }).type,
          expected: (err as { expected?: unknown }).expected,
          received: (err as { received?: unknown }).received,
        },
        'ussd: request body cut short by the client',
      );
    } else if (error.code !== 'invalid_input') {
      res.locals.logger.error({ err: error.cause ?? error, code: error.code }, 'ussd request failed');
    }
    if (!res.writable) return;
    sendPlain(res, error);
  };

  const session = (req: Request, res: Response): void => {
    runMiddleware(sessionMiddleware, req, res, (err) => {
      if (err !== undefined) {
        if (!res.headersSent) sessionError(err, res);
        return;
      }
      const parsed = ussdContract.session.body.safeParse(req.body);
      if (!parsed.success) {
        invalidBody(parsed.error, req, res);
        return;
      }
      void answer(parsed.data, res).then((reply) => {
        res.statusCode = 200;
        res.setHeader('content-type', PLAIN_TEXT);
        res.setHeader('content-length', Buffer.byteLength(reply));
        res.end(reply);
      });
    });
  };

  const routes = s.router(ussdContract, {
    session: {
      middleware: sessionMiddleware,
      handler: async ({ body, res }) => ({ status: 200, body: await answer(body, res) }),
    },
    debug: {
      middleware: [metrics.track('debug'), operatorAuth],
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
      middleware: [metrics.track('sessions'), operatorAuth],
      handler: async () => {
        const activeSessions = await sessions.list();
        return { status: 200, body: { activeSessions, count: activeSessions.length } };
      },
    },
  });

  const router = Router();
  createExpressEndpoints(ussdContract, routes, router, {
    logInitialization: false,
    requestValidationErrorHandler: (err, req, res) => {
      if (req.tsRestRoute !== ussdContract.session) {
        sendApiError(res, 400, 'bad_request', 'Invalid request parameters.');
        return;
      }
      invalidBody(err, req, res);
    },
  });

  const onError: ErrorRequestHandler = (err: unknown, req, res, next) => {
    const route = (req as { tsRestRoute?: unknown }).tsRestRoute;
    const isOperatorRoute = route === ussdContract.debug || route === ussdContract.sessions;
    if (res.headersSent || (route !== ussdContract.session && !isOperatorRoute)) {
      next(err);
      return;
    }
    if (isOperatorRoute) {
      res.locals.logger.error({ err, code: UssdError.from(err).code }, 'ussd operator route failed');
      sendApiError(res, 503, 'unavailable', 'Session store unavailable; retry later.');
      return;
    }
    sessionError(err, res);
  };
  router.use(onError);
  return { router, session };
}
