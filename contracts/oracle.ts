import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { OracleError } from './errors.js';
import { RunEndStatus } from './events.js';

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

/** ISO 8601 UTC date-time. */
const Timestamp = z.string().datetime();

/** A DID, `did:<method>:<identifier>`. */
export const Did = z
  .string()
  .regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/, 'a DID looks like did:<method>:<id>');

/**
 * The DID of a user a room's owner adds as a member: a DID this oracle can authenticate (a token's issuer), so
 * one of
 * - `did:key:z…`: a multibase base58btc key (`z`, then 40-512 base58 characters: Ed25519, secp256k1, P-256, RSA);
 * - `did:ixo:ixo1…`: an IXO account (bech32, 38-58 characters after `ixo1`);
 * - `did:ixo:entity:…`: an IXO entity (1-128 letters and digits).
 * Other methods (`did:web:…`, …) are valid W3C DIDs but cannot sign a token here, so they are refused (400).
 */
export const MemberDid = z
  .string()
  .max(600)
  .regex(
    /^(did:key:z[1-9A-HJ-NP-Za-km-z]{40,512}|did:ixo:ixo1[02-9ac-hj-np-z]{38,58}|did:ixo:entity:[A-Za-z0-9]{1,128})$/,
    'a member is a did:key:z… (base58btc), did:ixo:ixo1… (account) or did:ixo:entity:… DID',
  );

/** Id of a chat session or a run: letters, digits, `_` and `-`. */
const Id = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'an id is 1-100 letters, digits, _ or -');

/** Price of a turn, debited from the user's credits when the credits plugin is on (else `amount` is 0). */
export const Price = z.object({
  amount: z.number().nonnegative(),
  denom: z.string(),
  per: z.literal('turn'),
});
export type Price = z.infer<typeof Price>;

/**
 * Public configuration of this oracle (`GET /config`). `did` is the DID tokens are addressed to; `entityDid`
 * the oracle's on-chain entity (tokens addressed to either are accepted).
 *
 * @example
 * { "did": "did:key:z6Mk…", "entityDid": "did:ixo:entity:oracle7d1e3c9a2b", "name": "Guide oracle",
 *   "model": "scripted", "price": { "amount": 0, "denom": "credits", "per": "turn" },
 *   "apiUrl": "http://localhost:3000", "wsUrl": "http://localhost:3000" }
 */
export const OracleConfig = z.object({
  did: Did,
  entityDid: Did.optional(),
  name: z.string(),
  model: z.string(),
  price: Price,
  apiUrl: z.string().url(),
  wsUrl: z.string().url(),
});
export type OracleConfig = z.infer<typeof OracleConfig>;

/** The title of a session that was given none and has no user message yet. */
export const NEW_CHAT_TITLE = 'New chat';

/** A chat session of one user with this oracle. */
export const ChatSession = z.object({
  sessionId: Id,
  /** The title given at creation, else the session's first user message (trimmed), else {@link NEW_CHAT_TITLE}. */
  title: z.string(),
  createdAt: Timestamp,
  lastUpdatedAt: Timestamp,
  oracleName: z.string(),
  oracleDid: Did,
  oracleEntityDid: Did.optional(),
  roomId: z.string().optional(),
});
export type ChatSession = z.infer<typeof ChatSession>;

/** Id of a room (`room_…` for rooms made by `POST /rooms`; rooms of older sessions keep the id they were named by). */
export const RoomId = z.string().min(1).max(255);

/**
 * A room: the scope of shared preferences and of a session's `roomId`. Its owner (its creator) adds and removes
 * members by DID; for anyone else it does not exist (404 `room_not_found`, as for an unknown room).
 *
 * @example
 * { "roomId": "room_5b0c…", "name": "Clinic team", "ownerDid": "did:key:z6MkA…",
 *   "members": [{ "did": "did:key:z6MkA…", "role": "owner", "addedAt": "…" },
 *               { "did": "did:key:z6MkB…", "role": "member", "addedAt": "…" }],
 *   "createdAt": "2026-11-23T10:00:00.000Z" }
 */
export const Room = z.object({
  roomId: RoomId,
  name: z.string().optional(),
  ownerDid: Did,
  /** The owner first, then the members in the order they were added. */
  members: z.array(z.object({ did: Did, role: z.enum(['owner', 'member']), addedAt: Timestamp })),
  createdAt: Timestamp,
});
export type Room = z.infer<typeof Room>;

/** Body of `POST /rooms`. */
export const CreateRoomBody = z.object({ name: z.string().trim().min(1).max(200).optional() }).strict();

/** Body of `POST /sessions` (optional: the reference SDK sends none). */
export const CreateSessionBody = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    /** A room the caller owns or is a member of (else 404 `room_not_found`). */
    roomId: RoomId.optional(),
  })
  .strict();

/** Query of the paged lists (`GET /sessions`, `GET /rooms`): `limit` 1-100 (default 20) from `offset`. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** `GET /rooms` page: newest first, `total` counting every room of the caller. */
export const RoomPage = z.object({
  rooms: z.array(Room),
  total: z.number().int().nonnegative(),
});
export type RoomPage = z.infer<typeof RoomPage>;

/** `GET /sessions` page: newest first. */
export const SessionPage = z.object({
  sessions: z.array(ChatSession),
  total: z.number().int().nonnegative(),
});
export type SessionPage = z.infer<typeof SessionPage>;

/** What a stored tool call was: a server tool, a browser tool, an agent-UI action or a rendered component. */
export const ToolCallKind = z.enum(['tool', 'browser_tool', 'action', 'component']);

/** A tool call folded into the AI message that made it, with its output. */
export const StoredToolCall = z.object({
  id: z.string(),
  /** The tool, action or component name. */
  name: z.string(),
  kind: ToolCallKind.optional(),
  args: z.record(z.unknown()),
  status: z.enum(['isRunning', 'done', 'error', 'denied']).optional(),
  output: z.string().optional(),
  error: z.string().optional(),
  /** For a call that needed its user's approval: the decision (`decidedBy` is `system` for a timeout). */
  approval: z
    .object({
      approved: z.boolean(),
      decidedBy: z.string(),
      decidedAt: Timestamp,
      reason: z.string().optional(),
    })
    .optional(),
});
export type StoredToolCall = z.infer<typeof StoredToolCall>;

/** An attachment reference (the file itself lives on the messaging server). */
export const Attachment = z.object({
  filename: z.string().min(1).max(255),
  mimetype: z.string().min(1).max(255),
  size: z.number().int().nonnegative().optional(),
  mxcUri: z.string().max(2000).optional(),
  eventId: z.string().max(255).optional(),
});

/** One message of a thread as history returns it (system and tool messages are not part of it). */
export const MessageDto = z.object({
  id: z.string(),
  type: z.enum(['ai', 'human']),
  content: z.string(),
  createdAt: Timestamp.optional(),
  toolCalls: z.array(StoredToolCall).optional(),
  reasoning: z.string().optional(),
  isComplete: z.literal(true).optional(),
  isReasoning: z.literal(false).optional(),
  /** How the turn that wrote this AI message ended, when not `finished`. */
  runStatus: RunEndStatus.optional(),
  attachment: Attachment.extend({ category: z.string().optional() }).optional(),
});
export type MessageDto = z.infer<typeof MessageDto>;

/**
 * One page of a thread, oldest first. Without a cursor: the newest `limit` messages. `prevCursor` pages to
 * older messages (`before=`), `nextCursor` to newer ones (`after=`); `null` when there are none.
 */
export const TranscriptPage = z.object({
  messages: z.array(MessageDto),
  prevCursor: z.string().nullable(),
  nextCursor: z.string().nullable(),
  hasOlder: z.boolean(),
  hasNewer: z.boolean(),
});
export type TranscriptPage = z.infer<typeof TranscriptPage>;

/** Name of a tool or action the model may call (the OpenAI function-name rule). */
export const ToolName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a tool name is 1-64 letters, digits, _ or -');

/** A browser tool advertised with a message: `schema` is the JSON schema of its arguments. */
export const BrowserToolSpec = z.object({
  name: ToolName,
  description: z.string().max(2000),
  schema: z.record(z.unknown()),
});
export type BrowserToolSpec = z.infer<typeof BrowserToolSpec>;

/** An agent-UI action advertised with a message (`useAgAction`). */
export const AgActionSpec = BrowserToolSpec.extend({ hasRender: z.boolean().optional() });
export type AgActionSpec = z.infer<typeof AgActionSpec>;

/**
 * Longest user message accepted by default, in characters (ORACLE_MESSAGE_MAX_CHARS changes it; a longer
 * message answers 413 `payload_too_large`).
 */
export const MESSAGE_MAX_LENGTH = 20_000;

/**
 * Whether `name` is an IANA time zone name the runtime knows (`Africa/Nairobi`, `UTC`, `America/Argentina/Salta`,
 * or an alias such as `Asia/Calcutta`): area and location words of letters, digits, `_`, `+` and `-` joined by
 * `/`, and accepted by `Intl.DateTimeFormat`. An offset (`+03:00`), a newline or any other text is not.
 */
export function isTimeZone(name: string): boolean {
  if (KNOWN_TIME_ZONES.has(name)) return true;
  if (name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,3}$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
  } catch {
    return false;
  }
  // Remembered: a formatter costs tens of µs, and each turn checks its zone twice (request, prompt). Only
  // names the runtime accepted are kept, so the set is bounded by the IANA database (about 600 names).
  KNOWN_TIME_ZONES.add(name);
  return true;
}

/** Time zone names {@link isTimeZone} accepted before. */
const KNOWN_TIME_ZONES = new Set<string>();

/** Body of `POST /messages/:sessionId`. */
export const SendMessageBody = z.object({
  /** At most ORACLE_MESSAGE_MAX_CHARS characters (default {@link MESSAGE_MAX_LENGTH}); longer: 413. */
  message: z.string().min(1),
  /** `true`: answer a `text/event-stream` of the turn's events; otherwise one JSON answer at the end. */
  stream: z.boolean().optional(),
  /** The model id, one of `GET /models`; the oracle's default when absent. */
  model: z.string().max(100).optional(),
  /** `roomId`, when set, names a room of the caller (else 404 `room_not_found`): the turn's preferences are that room's. */
  metadata: z.record(z.unknown()).optional(),
  attachments: z.array(Attachment).max(10).optional(),
  tools: z.array(BrowserToolSpec).max(64).optional(),
  agActions: z.array(AgActionSpec).max(64).optional(),
  /** IANA time zone name of the user, e.g. `Europe/Berlin` or `UTC` (anything else: 400 `bad_request`). */
  timezone: z
    .string()
    .max(64)
    .refine(isTimeZone, 'timezone must be an IANA time zone name such as Europe/Berlin or UTC')
    .optional(),
  homeServer: z.string().max(255).optional(),
  mcpInvocations: z.record(z.string()).optional(),
});
export type SendMessageBody = z.infer<typeof SendMessageBody>;

/** Answer of a non-streamed `POST /messages/:sessionId`. */
export const SendMessageResult = z.object({
  message: z.object({ type: z.literal('ai'), content: z.string(), id: z.string() }),
  sessionId: z.string(),
});
export type SendMessageResult = z.infer<typeof SendMessageResult>;

/**
 * Status of a durable run. `queued`, `running`, `recovering` and `awaiting_approval` (a tool call waits for its
 * user's decision; see `pendingApprovals`) are in flight (re-joinable live).
 */
export const RunStatus = z.enum([
  'queued',
  'running',
  'recovering',
  'awaiting_approval',
  'finished',
  'aborted',
  'interrupted',
  'failed',
]);
export type RunStatus = z.infer<typeof RunStatus>;

/** A tool call waiting for its user's approval: decide it with `POST /sessions/:sessionId/tool-approvals/:toolCallId`. */
export const PendingApproval = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  args: z.record(z.unknown()),
  expiresAt: Timestamp,
});
export type PendingApproval = z.infer<typeof PendingApproval>;

/** The user's decision on a tool call that waits for approval. */
export const ApprovalDecisionBody = z
  .object({
    approved: z.boolean(),
    /** Why (shown to the model when denied); at most 500 characters. */
    reason: z.string().max(500).optional(),
  })
  .strict();
export type ApprovalDecisionBody = z.infer<typeof ApprovalDecisionBody>;

/** Answer of a decision: the call and the decision as recorded. */
export const ApprovalDecided = z.object({
  toolCallId: z.string(),
  approved: z.boolean(),
  decidedBy: z.string(),
  decidedAt: Timestamp,
  reason: z.string().optional(),
});
export type ApprovalDecided = z.infer<typeof ApprovalDecided>;

/** A durable run: one turn of a session, re-joinable while its events are retained. */
export const RunInfo = z.object({
  runId: Id,
  requestId: z.string(),
  sessionId: Id,
  status: RunStatus,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  /** The id of the last event written, for `GET /runs/:runId?after=`. */
  lastEventId: z.number().int().nonnegative(),
  /** The answer as far as it got, for runs that ended otherwise than `finished`. */
  partialText: z.string().optional(),
  /** Tool calls waiting for the user's approval (status `awaiting_approval`), as `tool_approval_requested` said. */
  pendingApprovals: z.array(PendingApproval).optional(),
});
export type RunInfo = z.infer<typeof RunInfo>;

/** A model this oracle can answer with (`GET /models`). */
export const ModelInfo = z.object({
  id: z.string(),
  label: z.string(),
  family: z.string(),
  tier: z.enum(['everyday', 'balanced', 'top']),
  costLabel: z.string(),
  badge: z.string(),
  blurb: z.string(),
  vision: z.boolean(),
  pricing: z.object({
    inputPerMillion: z.number().nonnegative(),
    outputPerMillion: z.number().nonnegative(),
    currency: z.literal('USD'),
    unit: z.literal('per_million_tokens'),
  }),
  isDefault: z.boolean(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

/** A serialized UCAN (base64 of its CAR archive) and its expiry, as `createDelegation` returns it. */
export const SerializedToken = z.object({
  serialized: z.string().min(1).max(64_000),
  /** Epoch milliseconds. */
  expiresAt: z.number().int().min(1),
});
export type SerializedToken = z.infer<typeof SerializedToken>;

/** Answer of `POST /delegation`: the stored delegation's issuer, audience and expiry (epoch ms). */
export const DelegationStored = z.object({
  issuer: Did,
  audience: Did,
  expiresAt: z.number().int().min(1),
});

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
