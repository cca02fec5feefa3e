import type { PendingApproval } from '../../../contracts/oracle.js';
import type { HttpHandler, WebSocketHandler } from 'msw';
import type { CreditsAccount } from '../../../contracts/credits.js';
import type {
  ActionCallResultEvent as ActionResult,
  ToolResultEvent as ToolResult,
} from '../../../contracts/events.js';
import type { Memory } from '../../../contracts/memory.js';
import type {
  ChatSession,
  MessageDto,
  ModelInfo,
  OracleConfig,
  SendMessageBody,
  SerializedToken,
} from '../../../contracts/oracle.js';
import type { UserPreferences } from '../../../contracts/preferences.js';
import type { MockRun } from './mock-run.js';

/** One step of a scripted turn. */
export type MockStep =
  /** Streams text as `message` deltas, word by word (default) or at once. */
  | { type: 'text'; text: string; chunk?: 'word' | 'whole' }
  /** Streams reasoning deltas word by word, then the closing `isComplete` event. */
  | { type: 'reasoning'; text: string }
  /**
   * A server tool call: a start event with the args, then an end event with the output (or error). With
   * `needsApproval`, it first streams `tool_approval_requested` and waits for a decision (the app's `approve` /
   * `deny`, i.e. `POST /sessions/:id/tool-approvals/:toolCallId`, or `control.decideApproval`): approved, it
   * runs as above; denied, one `tool_call` with status `denied` and the turn goes on.
   */
  | {
      type: 'tool_call';
      toolName: string;
      args?: Record<string, unknown>;
      output?: unknown;
      error?: string;
      needsApproval?: boolean;
    }
  /** A component for `uiComponents[componentName]`. */
  | { type: 'render_component'; componentName: string; args: Record<string, unknown> }
  /**
   * Calls a browser tool: on the stream (display) and the socket (execution); waits for `tool_result`. It is
   * not sent before the session's socket is connected (see {@link OracleMockOptions.socketWaitMs}).
   */
  | { type: 'browser_tool_call'; toolName: string; args: Record<string, unknown> }
  /** Calls an agent-UI action the same way (after the socket, too); waits for `action_call_result`. */
  | { type: 'action_call'; toolName: string; args: Record<string, unknown> }
  /** Fails the turn: an `error` event, then `done {status: 'failed'}`. */
  | { type: 'error'; error: string }
  | { type: 'delay'; ms: number }
  /** Closes the open streams without `done` (a dropped connection); the run goes on and can be re-joined. */
  | { type: 'drop' };

/** What a turn streams: steps, or a function of the request that returns them. */
export type MockScript = MockStep[] | ((turn: { sessionId: string; body: SendMessageBody }) => MockStep[]);

/** Options of {@link createOracleHandlers}; every one has a working default. */
export interface OracleMockOptions {
  /** The oracle's DID, as apps pass it to the hooks. Default `did:ixo:entity:mock-oracle`. */
  oracleDid?: string;
  /** The oracle's API origin. Default `http://oracle.test`. */
  apiUrl?: string;
  /** The socket.io origin. Default: `apiUrl`. */
  wsUrl?: string;
  /** The chain gateway's REST base URL (give it to `OraclesProvider chainRestUrl`). Default `http://chain.test`. */
  chainRestUrl?: string;
  chainRoutePrefix?: string;
  /** Fields of `GET /config` to change. */
  config?: Partial<OracleConfig>;
  models?: ModelInfo[];
  /** Sessions that exist at the start. */
  sessions?: ChatSession[];
  /** History by session id, oldest first. */
  history?: Record<string, MessageDto[]>;
  /** What every turn streams. Default {@link DEFAULT_SCRIPT}. */
  script?: MockScript;
  /** Pause between stream events, ms (default 0; the demo uses ~30 for visible streaming). */
  stepDelayMs?: number;
  /** When set, `POST /messages/:id` answers 402 `payment_required` with these claim ids. */
  paymentRequired?: string[] | false;
  /** The oracle has no (or an expired) delegation of the user: turns answer 401 until one is posted. */
  delegation?: 'stored' | 'missing' | 'expired';
  /** Refuse requests without `Authorization: Bearer` + `X-Auth-Type: ucan` (401 `auth_missing`). */
  requireInvocation?: boolean;
  /**
   * Decides the socket handshake: return the oracle's refusal code (`session_not_found`, `delegation_expired`,
   * `auth_expired`, `unavailable`, …: the client gets `connect_error` with `data: {code, statusCode}`, as from
   * the oracle), or nothing to accept it.
   */
  socketAuth?: (handshake: {
    query: URLSearchParams;
    auth: Record<string, unknown> | undefined;
  }) => string | undefined;
  /** Serve only the legacy whole history (`GET /messages/:id`); the paged route answers 404. */
  legacyHistoryOnly?: boolean;
  /** How long a browser-tool or action call waits for its result, ms (default 15000, as the oracle). */
  toolTimeoutMs?: number;
  /**
   * How long a scripted `browser_tool_call` or `action_call` waits for a connected socket of its session before
   * it is emitted, ms (default 5000). A turn sent before the socket is up (a test that does not wait for
   * `isRealTimeConnected`, a handshake refused once and retried) then still reaches the browser; when no socket
   * connects in time the turn fails with an `error` event and `done {status: 'failed'}` whose message names
   * the step and the session, and the same `Error` is kept in `control.errors`.
   */
  socketWaitMs?: number;
  credits?: Partial<CreditsAccount>;
  /**
   * How the next `POST /credits/payments` reports are answered, one entry per report, before reports are
   * credited as usual: a refusal of the service (404 `payment_not_found` while the block is not in yet, 422
   * `payment_mismatch` or `payment_failed`, 409 `payment_conflict`) or `network_error` (no answer at all). As
   * the service, a txHash that was credited answers its first answer again and credits nothing.
   *
   * @example
   * createOracleHandlers({ paymentReports: ['payment_not_found', 'payment_not_found'] }) // credited on the third
   */
  paymentReports?: PaymentReportAnswer[];
  memories?: Memory[];
  /**
   * The user's preferences (`GET /user-preferences`); `null` (the default) when none are set. A scripted
   * `tool_call` of `set_user_preferences` merges its args into them (a `null` field clears it).
   */
  preferences?: UserPreferences | null;
  /** Serve a Matrix home server's `whoami` and `openid/request_token` at this origin. */
  matrixHomeServer?: string;
}

/** A scripted answer to a payment report (see {@link OracleMockOptions.paymentReports}). */
export type PaymentReportAnswer =
  'payment_not_found' | 'payment_mismatch' | 'payment_failed' | 'payment_conflict' | 'network_error';

/** A request the mock received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/** Everything the mock saw and holds, for assertions, and levers to change it mid-test. */
export interface OracleMockControl {
  readonly oracleDid: string;
  readonly apiUrl: string;
  readonly wsUrl: string;
  readonly chainRestUrl: string;
  readonly requests: RecordedRequest[];
  readonly sessions: ChatSession[];
  readonly history: Map<string, MessageDto[]>;
  readonly runs: Map<string, MockRun>;
  readonly delegations: SerializedToken[];
  readonly toolResults: ToolResult[];
  /** The preferences as `GET /user-preferences` answers them now. */
  readonly preferences: () => UserPreferences | null;
  readonly actionResults: ActionResult[];
  /**
   * Errors of the kit itself while it played a script, e.g. a scripted browser tool call whose session had no
   * connected socket within `socketWaitMs`: each one also failed its turn (an `error` event with its message).
   */
  readonly errors: Error[];
  /** Socket handshakes, accepted or not. */
  readonly handshakes: {
    query: Record<string, string>;
    auth: Record<string, unknown> | undefined;
    accepted: boolean;
  }[];
  /** Sends a socket event (raw payload) to the clients of a session. */
  emit(sessionId: string, event: string, payload: unknown): void;
  /** Drops every socket of a session (clients reconnect). */
  dropSockets(sessionId?: string): void;
  setScript(script: MockScript): void;
  setPaymentRequired(claims: string[] | false): void;
  /** Queues answers for the next payment reports (after those still queued), as `paymentReports`. */
  answerPaymentReports(answers: PaymentReportAnswer[]): void;
  /** The latest run of a session. */
  latestRun(sessionId: string): MockRun | undefined;
  /** Tool calls of scripted steps with `needsApproval` that wait for a decision now. */
  readonly pendingApprovals: () => PendingApproval[];
  /** Decides a waiting call as its user would (false when no such call waits). */
  decideApproval(toolCallId: string, approved: boolean, reason?: string): boolean;
}

/** msw handlers of a mocked oracle, with its {@link OracleMockControl} as `control`. */
export type OracleHandlers = Array<HttpHandler | WebSocketHandler> & { control: OracleMockControl };

/** What a turn streams by default: reasoning, text, a server tool call, a component, more text. */
export const DEFAULT_SCRIPT: MockStep[] = [
  { type: 'reasoning', text: 'The user greets me; answer briefly.' },
  { type: 'text', text: 'Hello! Let me check the weather. ' },
  { type: 'tool_call', toolName: 'get_weather', args: { city: 'Nairobi' }, output: { temperature: 24 } },
  { type: 'render_component', componentName: 'WeatherCard', args: { city: 'Nairobi', temperature: 24 } },
  { type: 'text', text: 'It is 24 degrees in Nairobi.' },
];
