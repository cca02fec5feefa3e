import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { OracleError } from './errors.js';
import {
  ApprovalDecided,
  ApprovalDecisionBody,
  ChatSession,
  CreateRoomBody,
  CreateSessionBody,
  Did,
  DelegationStored,
  Id,
  MemberDid,
  MessageDto,
  ModelInfo,
  OracleConfig,
  PageQuery,
  Room,
  RoomId,
  RoomPage,
  RunInfo,
  SendMessageBody,
  SendMessageResult,
  SerializedToken,
  SessionPage,
  TranscriptPage,
} from './oracle-schemas.js';

export * from './oracle-schemas.js';

const c = initContract();

/**
 * Capabilities of the agent service's tokens, declared once (spec §5 C). Tokens are UCANs (ucanto), issued by
 * the user and addressed to the oracle:
 * - the invocation (`Authorization: Bearer <invocation>` + `X-Auth-Type: ucan`) grants `oracle/use` on the
 *   oracle's DID;
 * - the delegation (`x-ucan-delegation`, and `POST /delegation`) grants `oracle/act` on the user's DID: the
 *   oracle may act for the user downstream.
 */
export const ORACLE_CAPABILITIES = {
  invocation: { can: 'oracle/use', with: 'oracle' },
  delegation: { can: 'oracle/act', with: 'user' },
} as const;

/** Headers of an authenticated request; in OpenAPI they are security schemes, not parameters. */
export const AUTH_HEADERS = {
  invocation: 'authorization',
  authType: 'x-auth-type',
  delegation: 'x-ucan-delegation',
} as const;

/** Route metadata read by the server (auth middleware) and the OpenAPI generator (security). */
export interface OracleRouteMetadata {
  /** `ucan`: every request needs a valid invocation or delegation; `public`: none. */
  auth: 'ucan' | 'public';
  /** The route answers `text/event-stream` (always, or when the body says `stream: true`). */
  stream?: 'always' | 'optional';
}

const ucan = { auth: 'ucan' } as const satisfies OracleRouteMetadata;
const publicRoute = { auth: 'public' } as const satisfies OracleRouteMetadata;

const SessionParams = z.object({ sessionId: Id });
const RoomParams = z.object({ roomId: RoomId });
/** Adding checks the member grammar ({@link MemberDid}); removing takes any DID (one added before it stays removable). */
const AddMemberParams = z.object({ roomId: RoomId, memberDid: MemberDid });
const MemberParams = z.object({ roomId: RoomId, memberDid: Did });
const Message = z.object({ message: z.string() });

/** Answer of the SSE routes, declared for OpenAPI; the event schemas are components of the document. */
const EventStream = c.otherResponse({
  contentType: 'text/event-stream',
  body: z
    .string()
    .describe('Server-sent events: `id: <n>`, `event: <name>`, `data: <JSON>`; see contracts/events.ts'),
});

/**
 * The agent ("oracle") service, at the server root (the SDK's `apiUrl` is the base URL). Every route but
 * `/config` and `/models` needs a capability token (see {@link ORACLE_CAPABILITIES}); failures answer 401
 * {@link OracleError} with a code per reason.
 */
export const oracleContract = c.router(
  {
    config: {
      method: 'GET',
      path: '/config',
      summary: "This oracle's public configuration: DIDs, name, model, price, API and WebSocket URLs",
      metadata: publicRoute,
      responses: { 200: OracleConfig },
    },
    models: {
      method: 'GET',
      path: '/models',
      summary: 'The models this oracle can answer with, and the default',
      metadata: publicRoute,
      responses: { 200: z.object({ models: z.array(ModelInfo), default: z.string() }) },
    },
    createSession: {
      method: 'POST',
      path: '/sessions',
      summary: 'Creates a chat session of the calling user',
      description:
        'At most ORACLE_MAX_SESSIONS_PER_USER sessions per user: one more answers 403 `quota_exceeded` ' +
        "(`quota: {name: 'sessions', limit}`); deleting a session frees its place.",
      metadata: ucan,
      body: CreateSessionBody.optional(),
      responses: {
        201: ChatSession,
        400: OracleError,
        401: OracleError,
        403: OracleError,
        404: OracleError,
        503: OracleError,
      },
    },
    listSessions: {
      method: 'GET',
      path: '/sessions',
      summary: "The calling user's chat sessions, newest first",
      metadata: ucan,
      query: PageQuery,
      responses: { 200: SessionPage, 400: OracleError, 401: OracleError, 503: OracleError },
    },
    deleteSession: {
      method: 'DELETE',
      path: '/sessions/:sessionId',
      summary: 'Deletes a chat session and its history; a turn in flight is aborted',
      metadata: ucan,
      pathParams: SessionParams,
      body: c.noBody(),
      responses: { 200: Message, 400: OracleError, 401: OracleError, 404: OracleError, 503: OracleError },
    },
    transcript: {
      method: 'GET',
      path: '/sessions/:sessionId/messages',
      summary: 'One page of a thread (opaque cursors; newest page without one)',
      metadata: ucan,
      pathParams: SessionParams,
      query: z.object({
        limit: z.coerce.number().int().min(1).max(200).default(20),
        before: z.string().max(200).optional(),
        after: z.string().max(200).optional(),
      }),
      responses: {
        200: TranscriptPage,
        400: OracleError,
        401: OracleError,
        404: OracleError,
        503: OracleError,
      },
    },
    currentRun: {
      method: 'GET',
      path: '/sessions/:sessionId/run',
      summary: "The session's latest run (re-join it while it is queued, running or recovering)",
      description:
        'A session with no run yet answers 204 with no body; an unknown session, or one that is not the ' +
        "caller's, answers 404 `session_not_found`.",
      metadata: ucan,
      pathParams: SessionParams,
      responses: {
        200: z.object({ run: RunInfo }),
        204: c.noBody(),
        400: OracleError,
        401: OracleError,
        404: OracleError,
        503: OracleError,
      },
    },
    decideToolApproval: {
      method: 'POST',
      path: '/sessions/:sessionId/tool-approvals/:toolCallId',
      summary: 'Approves or denies a tool call that waits for the user (tool_approval_requested)',
      description:
        "Only the session's owner decides. Approved: the tool runs and the turn goes on. Denied: the tool does " +
        'not run; the model reads that the user declined (with `reason`) and the turn ends normally. Answers 404 ' +
        "`approval_not_found` for a call that is not waiting or is not the caller's, and 409 " +
        '`approval_already_decided` for a second decision (of two racing decisions, exactly one wins).',
      metadata: ucan,
      pathParams: z.object({ sessionId: Id, toolCallId: z.string().min(1).max(200) }),
      body: ApprovalDecisionBody,
      responses: {
        200: ApprovalDecided,
        400: OracleError,
        401: OracleError,
        404: OracleError,
        409: OracleError,
        503: OracleError,
      },
    },
    // Declared before `send`: `/messages/abort` must not be read as a session id.
    abort: {
      method: 'POST',
      path: '/messages/abort',
      summary:
        "Aborts the session's turn in flight; its stream ends with done {status: 'aborted', partialText}",
      metadata: ucan,
      body: z.object({ sessionId: Id }),
      responses: {
        200: z.object({ success: z.boolean() }),
        400: OracleError,
        401: OracleError,
        404: OracleError,
        503: OracleError,
      },
    },
    history: {
      method: 'GET',
      path: '/messages/:sessionId',
      summary: 'The whole thread (older clients; prefer the paged transcript)',
      metadata: ucan,
      pathParams: SessionParams,
      responses: {
        200: z.object({ messages: z.array(MessageDto) }),
        400: OracleError,
        401: OracleError,
        404: OracleError,
        503: OracleError,
      },
    },
    send: {
      method: 'POST',
      path: '/messages/:sessionId',
      summary: 'Sends a user message; with stream: true answers the turn as server-sent events',
      description:
        'With `stream: true` the answer is `text/event-stream` (headers `X-Request-Id`, `X-Run-Id`): a `run` event, ' +
        "then the turn's events, then `done`. A new message on the same session ends the previous stream. " +
        'A refusal (401, 402, 404, 413, 429) is JSON before any stream starts and writes nothing. 429 carries ' +
        '`retryAfter` (seconds) and a `Retry-After` header: too many turns this minute (`too_many_turns`) or ' +
        'too many in flight (`too_many_runs`).',
      metadata: { auth: 'ucan', stream: 'optional' } satisfies OracleRouteMetadata,
      pathParams: SessionParams,
      body: SendMessageBody,
      responses: {
        200: SendMessageResult,
        400: OracleError,
        401: OracleError,
        402: OracleError,
        404: OracleError,
        413: OracleError,
        429: OracleError,
        503: OracleError,
      },
    },
    rejoinRun: {
      method: 'GET',
      path: '/runs/:runId',
      summary:
        "Re-joins a run's events after event id `after` (or the Last-Event-ID header), then follows it live",
      description:
        "A run that is unknown, another user's or no longer kept answers 404 `run_not_found` (the same answer " +
        'either way).',
      metadata: { auth: 'ucan', stream: 'always' } satisfies OracleRouteMetadata,
      pathParams: z.object({ runId: Id }),
      query: z.object({ after: z.coerce.number().int().min(0).optional() }),
      headers: z.object({ 'last-event-id': z.string().max(32).optional() }),
      responses: { 200: EventStream, 400: OracleError, 401: OracleError, 404: OracleError, 503: OracleError },
    },
    createRoom: {
      method: 'POST',
      path: '/rooms',
      summary: 'Creates a room owned by the caller (the scope of shared preferences and of sessions)',
      description:
        "At most ORACLE_MAX_ROOMS_OWNED rooms per owner: one more answers 403 `quota_exceeded` (`quota: {name: 'rooms_owned', limit}`).",
      metadata: ucan,
      body: CreateRoomBody.optional(),
      responses: { 201: Room, 400: OracleError, 401: OracleError, 403: OracleError, 503: OracleError },
    },
    listRooms: {
      method: 'GET',
      path: '/rooms',
      summary: 'The rooms the caller owns or is a member of, newest first, one page at a time',
      description:
        'Paged as `GET /sessions`: `limit` (1-100, default 20) from `offset`; `total` counts them all.',
      metadata: ucan,
      query: PageQuery,
      responses: { 200: RoomPage, 400: OracleError, 401: OracleError, 503: OracleError },
    },
    getRoom: {
      method: 'GET',
      path: '/rooms/:roomId',
      summary: 'A room and its members (members only; 404 for anyone else)',
      metadata: ucan,
      pathParams: RoomParams,
      responses: { 200: Room, 400: OracleError, 401: OracleError, 404: OracleError, 503: OracleError },
    },
    addRoomMember: {
      method: 'PUT',
      path: '/rooms/:roomId/members/:memberDid',
      summary:
        "Adds a member to the caller's room by DID (the owner only: 403 for a member, 404 for anyone else)",
      description:
        '`memberDid` is a `did:key:z…`, `did:ixo:ixo1…` or `did:ixo:entity:…` DID (see MemberDid; else 400 ' +
        '`bad_request` naming `path.memberDid`). A room has at most ORACLE_MAX_ROOM_MEMBERS members besides its ' +
        'owner and a user is a member of at most ORACLE_MAX_ROOMS_JOINED rooms: past either, 403 ' +
        '`quota_exceeded` (`quota.name` `room_members` or `rooms_joined`). Adding a member twice changes nothing.',
      metadata: ucan,
      pathParams: AddMemberParams,
      body: c.noBody(),
      responses: {
        200: Room,
        400: OracleError,
        401: OracleError,
        403: OracleError,
        404: OracleError,
        503: OracleError,
      },
    },
    removeRoomMember: {
      method: 'DELETE',
      path: '/rooms/:roomId/members/:memberDid',
      summary:
        'Removes a member: the owner removes anyone but themselves, a member removes themselves (leaves)',
      metadata: ucan,
      pathParams: MemberParams,
      body: c.noBody(),
      responses: {
        200: Room,
        400: OracleError,
        401: OracleError,
        403: OracleError,
        404: OracleError,
        503: OracleError,
      },
    },
    storeDelegation: {
      method: 'POST',
      path: '/delegation',
      summary: "Stores the user's delegation to this oracle (what createDelegation returns)",
      metadata: ucan,
      body: SerializedToken,
      responses: { 200: DelegationStored, 400: OracleError, 401: OracleError, 503: OracleError },
    },
  },
  { strictStatusCodes: true },
);

export type OracleContract = typeof oracleContract;
