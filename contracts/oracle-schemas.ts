import { z } from 'zod';
import { RunEndStatus } from './events.js';

// The agent ("oracle") service's request and answer bodies, declared once; the routes that carry them are in
// oracle.ts (which re-exports everything here, so `contracts/oracle.js` stays the one import).

/** ISO 8601 UTC date-time. */
export const Timestamp = z.string().datetime();

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
export const Id = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'an id is 1-100 letters, digits, _ or -');

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
  /**
   * `awaiting_approval`: the call waits for its user's decision (only in the answer of a run in flight, see
   * {@link MessageDto}); `denied`: the user (or the timeout) declined it and it did not run.
   */
  status: z.enum(['isRunning', 'done', 'error', 'awaiting_approval', 'denied']).optional(),
  output: z.string().optional(),
  error: z.string().optional(),
  /** A call `awaiting_approval`: when it is denied with reason `timeout` if nobody decides. */
  expiresAt: Timestamp.optional(),
  /**
   * For a call that needed its user's approval, once decided: who (the user's DID; `system` for a timeout or a
   * turn that ended while it waited), when, approved or not, and the reason given.
   */
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

/**
 * One message of a thread as history returns it (system and tool messages are not part of it). Stored AI
 * messages carry `isComplete: true`. An AI message without it is the answer of a run still in flight that waits
 * for its user's approval: the answer so far, with the waiting call in `toolCalls` (status `awaiting_approval`);
 * it comes last, under the turn's request id, and the stored answer takes its place when the turn ends.
 */
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
 * older messages (`before=`), `nextCursor` to newer ones (`after=`); `null` when there are none. The newest page
 * (`hasNewer` false) ends with the answer of a run that waits for its user's approval, if there is one (not
 * counted in `limit`; see {@link MessageDto}).
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
  /**
   * The app asks its user before the tool runs: the oracle waits for the result for as long as an approval may
   * take (ORACLE_APPROVAL_TIMEOUT_S), not only ORACLE_TOOL_TIMEOUT_MS.
   */
  needsApproval: z.boolean().optional(),
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
