import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { isClientErrorStatus } from '../../http/error-kind.js';
import type { Logger } from '../../logger.js';

/** The USSD routes, as metric label values. */
export type UssdRoute = 'session' | 'debug' | 'sessions';

/**
 * How a request ended. The session endpoint answers `CON`, `END`, `invalid` (the invalid-input reply) or
 * `error` (the unavailable reply), or refuses a caller that is not the aggregator (`unauthorized`,
 * `forbidden`); the operator endpoints answer `ok`, `not_found` or `unauthorized`; any route can be
 * `rate_limited`.
 */
export type UssdOutcome =
  'CON' | 'END' | 'invalid' | 'error' | 'rate_limited' | 'ok' | 'not_found' | 'unauthorized' | 'forbidden';

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set by the USSD handlers when the HTTP status alone does not tell the outcome (every reply is 200). */
    ussdOutcome?: UssdOutcome;
  }
}

/** Request metrics of the USSD part, registered on the app's own registry. */
export interface UssdMetrics {
  /** Middleware that times the request and counts it under `route` and its outcome when it finishes. */
  track(route: UssdRoute): RequestHandler;
}

function outcomeOfStatus(status: number): UssdOutcome {
  if (status === 429) return 'rate_limited';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (isClientErrorStatus(status)) return 'invalid';
  return status >= 500 ? 'error' : 'ok';
}

/**
 * Registers `ussd_requests_total` and `ussd_request_duration_seconds` (labels `route`, `outcome`) and the
 * `ussd_active_sessions` gauge, which asks the session store at scrape time.
 */
export function createUssdMetrics(
  registry: Registry,
  activeSessions: () => Promise<number>,
  logger: Logger,
): UssdMetrics {
  const labelNames = ['route', 'outcome'] as const;
  const requests = new Counter({
    name: 'ussd_requests_total',
    help: 'USSD gateway requests by route and outcome',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'ussd_request_duration_seconds',
    help: 'USSD gateway request latency by route and outcome',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new Gauge({
    name: 'ussd_active_sessions',
    help: 'USSD sessions that have not ended or expired',
    registers: [registry],
    async collect() {
      try {
        this.set(await activeSessions());
      } catch (err) {
        logger.warn({ err }, 'ussd_active_sessions: session store unreachable; keeping the last value');
      }
    },
  });

  // Label children are looked up once per (route, outcome), not hashed on every request.
  const children = new Map<string, { count: () => void; time: (seconds: number) => void }>();
  const child = (route: UssdRoute, outcome: UssdOutcome) => {
    const key = `${route}|${outcome}`;
    let found = children.get(key);
    if (found === undefined) {
      const counter = requests.labels(route, outcome);
      const histogram = duration.labels(route, outcome);
      found = { count: () => counter.inc(), time: (seconds) => histogram.observe(seconds) };
      children.set(key, found);
    }
    return found;
  };

  return {
    track(route) {
      return (_req, res, next) => {
        const started = performance.now();
        res.once('finish', () => {
          const c = child(route, res.locals.ussdOutcome ?? outcomeOfStatus(res.statusCode));
          c.count();
          c.time((performance.now() - started) / 1000);
        });
        next();
      };
    },
  };
}
