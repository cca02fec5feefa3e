import { initContract } from '@ts-rest/core';
import { z } from 'zod';

const c = initContract();

/** ISO 8601 UTC date-time, e.g. `2026-11-21T22:13:39.123Z`. */
const IsoTimestamp = z.string().datetime();

/**
 * Health record (spec A5): what this instance sees of its dependencies, for operators and monitoring. `status`
 * is `ok` (HTTP 200) when every dependency the service needs answers: `database` is `connected` when the
 * database answers a query, `redis` (present when Redis is configured) when Redis answers a PING. Otherwise
 * `error` (HTTP 503); `draining` (HTTP 503) while the server stops. Not a balancer's check: a shared
 * PostgreSQL or Redis that is down makes every instance answer 503 at once (see {@link ReadinessRecord}).
 */
export const HealthRecord = z.strictObject({
  status: z.enum(['ok', 'error', 'draining']),
  environment: z.string(),
  timestamp: IsoTimestamp,
  /** Process uptime in whole seconds. */
  uptime: z.number().int().nonnegative(),
  database: z.enum(['connected', 'disconnected']),
  /** Present when Redis is configured (`REDIS_URL`): sessions, rate limits and run events live there. */
  redis: z.enum(['connected', 'disconnected']).optional(),
  /** The agent service's plugins and their states (when the oracle part is enabled). */
  plugins: z
    .array(
      z.strictObject({
        name: z.string(),
        state: z.enum(['ready', 'degraded', 'disabled']),
        /** Why a plugin is degraded or disabled. */
        reason: z.string().optional(),
      }),
    )
    .optional(),
});
export type HealthRecord = z.infer<typeof HealthRecord>;

/**
 * Liveness (`GET /health/live`): the process answers requests, so there is no reason to restart it. Always
 * HTTP 200, also while a dependency is down and while the server drains (a restart then would cut what the
 * drain is finishing). Touches no dependency.
 */
export const LivenessRecord = z.strictObject({
  status: z.enum(['ok', 'draining']),
  timestamp: IsoTimestamp,
  /** Process uptime in whole seconds. */
  uptime: z.number().int().nonnegative(),
});
export type LivenessRecord = z.infer<typeof LivenessRecord>;

/**
 * Readiness (`GET /health/ready`): whether a balancer should send this instance requests. `ready` (HTTP 200)
 * from the moment its parts serve until the stop signal; `draining` (HTTP 503) from the signal on, through
 * PRESTOP_DELAY_MS and the drain, so a balancer that polls it stops sending before the listener closes.
 * Dependencies are not checked: PostgreSQL and Redis are shared by every instance, so one that is down would
 * take the whole fleet out of the balancer at once, including the routes that do not need it (the chain
 * gateway), and replace the service's own answers (the USSD `END Service temporarily unavailable…`, the
 * oracle's 503 `unavailable` that clients retry) with the balancer's error page. Answered from memory, so a
 * stalled dependency never makes the probe time out.
 */
export const ReadinessRecord = z.strictObject({
  status: z.enum(['ready', 'draining']),
  timestamp: IsoTimestamp,
  /** The parts this instance serves (ENABLED_PARTS). */
  parts: z.array(z.enum(['ussd', 'chain', 'oracle'])),
});
export type ReadinessRecord = z.infer<typeof ReadinessRecord>;

/** Basic probe record (spec A6). */
export const ProbeRecord = z.strictObject({
  status: z.literal('ok'),
  message: z.string(),
  environment: z.string(),
  timestamp: IsoTimestamp,
});
export type ProbeRecord = z.infer<typeof ProbeRecord>;

/** Shared operator endpoints: health, liveness, readiness and the basic probe, served by every deployment. */
export const systemContract = c.router(
  {
    health: {
      method: 'GET',
      path: '/health',
      summary: 'Health record with a real database check (spec A5)',
      responses: { 200: HealthRecord, 503: HealthRecord },
    },
    live: {
      method: 'GET',
      path: '/health/live',
      summary: 'Liveness: 200 while the process answers, whatever its dependencies say',
      responses: { 200: LivenessRecord },
    },
    ready: {
      method: 'GET',
      path: '/health/ready',
      summary: 'Readiness for a balancer: 200 while this instance serves, 503 from the stop signal on',
      responses: { 200: ReadinessRecord, 503: ReadinessRecord },
    },
    probe: {
      method: 'GET',
      path: '/',
      summary: 'Basic probe for platform health checks (spec A6)',
      responses: { 200: ProbeRecord },
    },
  },
  // Only the declared statuses type-check in handlers and clients (a drifted status is a compile error).
  { strictStatusCodes: true },
);
