import { initContract } from '@ts-rest/core';
import { z } from 'zod';

const c = initContract();

/** ISO 8601 UTC date-time, e.g. `2026-11-21T22:13:39.123Z`. */
const IsoTimestamp = z.string().datetime();

/**
 * Health record (spec A5). `status` is `ok` (HTTP 200) when every dependency the service needs answers:
 * `database` is `connected` when the database answers a query, `redis` (present when Redis is configured) when
 * Redis answers a PING. Otherwise `error` (HTTP 503); `draining` (HTTP 503) while the server stops.
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

/** Basic probe record (spec A6). */
export const ProbeRecord = z.strictObject({
  status: z.literal('ok'),
  message: z.string(),
  environment: z.string(),
  timestamp: IsoTimestamp,
});
export type ProbeRecord = z.infer<typeof ProbeRecord>;

/** Shared operator endpoints: health and the basic probe, served by every deployment. */
export const systemContract = c.router(
  {
    health: {
      method: 'GET',
      path: '/health',
      summary: 'Health record with a real database check (spec A5)',
      responses: { 200: HealthRecord, 503: HealthRecord },
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
