import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { OracleError } from './errors.js';
import type { OracleRouteMetadata } from './oracle.js';

const c = initContract();
const ucan = { auth: 'ucan' } as const satisfies OracleRouteMetadata;

/** Longest remembered fact, in characters. */
export const MEMORY_CONTENT_MAX = 2000;

/** A tag of a memory: lower-case letters, digits, `_` and `-`. */
export const MemoryTag = z
  .string()
  .regex(/^[a-z0-9_-]{1,40}$/, 'a tag is 1-40 lower-case letters, digits, _ or -');

/**
 * A fact the memory plugin keeps about a user (who they are, their projects, what they produced), the
 * separate memory that spec D's use rule 2 points to. Per user DID, across sessions.
 */
export const Memory = z.object({
  id: z.string(),
  content: z.string(),
  tags: z.array(MemoryTag),
  createdAt: z.string().datetime(),
});
export type Memory = z.infer<typeof Memory>;

/** Body of `POST /memory`. */
export const RememberBody = z
  .object({
    content: z.string().trim().min(1).max(MEMORY_CONTENT_MAX),
    tags: z.array(MemoryTag).max(10).optional(),
  })
  .strict();
export type RememberBody = z.infer<typeof RememberBody>;

/** Memory plugin routes (`features.memory`), used by the SDK's `useMemoryEngine`. */
export const memoryContract = c.router(
  {
    list: {
      method: 'GET',
      path: '/memory',
      summary: "The calling user's memories, newest first; `q` filters by words in the content or a tag",
      metadata: ucan,
      query: z.object({
        q: z.string().max(200).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(20),
        offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
      }),
      responses: {
        200: z.object({ memories: z.array(Memory), total: z.number().int().nonnegative() }),
        400: OracleError,
        401: OracleError,
        503: OracleError,
      },
    },
    remember: {
      method: 'POST',
      path: '/memory',
      summary: 'Stores a memory of the calling user',
      description:
        "At most ORACLE_MAX_MEMORIES_PER_USER memories per user: one more answers 403 `quota_exceeded` (`quota: {name: 'memories', limit}`).",
      metadata: ucan,
      body: RememberBody,
      responses: { 201: Memory, 400: OracleError, 401: OracleError, 403: OracleError, 503: OracleError },
    },
    forget: {
      method: 'DELETE',
      path: '/memory/:memoryId',
      summary: 'Deletes one memory of the calling user',
      metadata: ucan,
      pathParams: z.object({ memoryId: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/) }),
      body: c.noBody(),
      responses: {
        200: z.object({ message: z.string() }),
        400: OracleError,
        401: OracleError,
        404: OracleError,
        503: OracleError,
      },
    },
  },
  { strictStatusCodes: true },
);
