import { http, HttpResponse, ws, type HttpHandler, type WebSocketHandler } from 'msw';
import type { Entity, IidDocument } from '../../../contracts/chain-schemas.js';
import { creditsContract, type CreditsAccount } from '../../../contracts/credits.js';
import type { OracleError, OracleErrorCode, ApiErrorCode } from '../../../contracts/errors.js';
import {
  ActionCallResultEvent,
  ToolResultEvent,
  type ActionCallResultEvent as ActionResult,
  type ToolResultEvent as ToolResult,
} from '../../../contracts/events.js';
import { memoryContract, type Memory } from '../../../contracts/memory.js';
import {
  oracleContract,
  type ChatSession,
  type MessageDto,
  type ModelInfo,
  type OracleConfig,
  type RunInfo,
  type SendMessageBody,
  type SerializedToken,
  type SessionPage,
  type StoredToolCall,
  type TranscriptPage,
} from '../../../contracts/oracle.js';
import { MockRun } from './mock-run.js';
import { SocketIoMockClient } from './socket-io-mock.js';

/** One step of a scripted turn. */
export type MockStep =
  /** Streams text as `message` deltas, word by word (default) or at once. */
  | { type: 'text'; text: string; chunk?: 'word' | 'whole' }
  /** Streams reasoning deltas word by word, then the closing `isComplete` event. */
  | { type: 'reasoning'; text: string }
  /** A server tool call: a start event with the args, then an end event with the output (or error). */
  | { type: 'tool_call'; toolName: string; args?: Record<string, unknown>; output?: unknown; error?: string }
  /** A component for `uiComponents[componentName]`. */
  | { type: 'render_component'; componentName: string; args: Record<string, unknown> }
  /** Calls a browser tool: on the stream (display) and the socket (execution); waits for `tool_result`. */
  | { type: 'browser_tool_call'; toolName: string; args: Record<string, unknown> }
  /** Calls an agent-UI action the same way; waits for `action_call_result`. */
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
  /** Decides the socket handshake: return a refusal message (the client gets `connect_error`), or nothing. */
  socketAuth?: (handshake: {
    query: URLSearchParams;
    auth: Record<string, unknown> | undefined;
  }) => string | undefined;
  /** Serve only the legacy whole history (`GET /messages/:id`); the paged route answers 404. */
  legacyHistoryOnly?: boolean;
  /** How long a browser-tool or action call waits for its result, ms (default 15000, as the oracle). */
  toolTimeoutMs?: number;
  credits?: Partial<CreditsAccount>;
  memories?: Memory[];
  /** Serve a Matrix home server's `whoami` and `openid/request_token` at this origin. */
  matrixHomeServer?: string;
}

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
  readonly actionResults: ActionResult[];
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
  /** The latest run of a session. */
  latestRun(sessionId: string): MockRun | undefined;
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

const now = (): string => new Date().toISOString();
let counter = 0;
const nextId = (prefix: string): string => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36)}`;

const errorBody = (
  statusCode: number,
  code: OracleErrorCode | ApiErrorCode,
  message: string,
  extra: Partial<OracleError> = {},
): Response =>
  HttpResponse.json<OracleError>(
    { code, message, statusCode, requestId: nextId('req'), ...extra },
    { status: statusCode },
  );

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const wsOrigin = (url: string): string => url.replace(/^http/, 'ws').replace(/\/+$/, '');

/**
 * msw 2 handlers of a mocked oracle and its chain entity, typed from the same contracts as the SDK: config
 * resolution through the chain REST route, `/config`, `/models`, sessions, paged and legacy history, scripted
 * SSE turns with durable runs (re-join, abort, pick-up), the socket.io channel (browser tools and actions
 * round-trip), `/delegation`, credits, memory, and the 401 and 402 scenarios.
 *
 * The socket channel speaks socket.io's wire protocol over msw's `ws` API (see `SocketIoMockClient`); the
 * SDK's socket uses `globalThis.WebSocket` at connect time, so msw intercepts it in jsdom and in browsers.
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { createOracleHandlers } from '@open-oracles/oracles-client-sdk/msw';
 * const oracle = createOracleHandlers({ paymentRequired: ['claim-1'] });
 * const server = setupServer(...oracle);
 * // <OraclesProvider chainRestUrl={oracle.control.chainRestUrl} …> and useChat({ oracleDid: oracle.control.oracleDid, … })
 * expect(oracle.control.requests.at(-1)?.headers['x-ucan-delegation']).toBeDefined();
 */
export function createOracleHandlers(options: OracleMockOptions = {}): OracleHandlers {
  const oracleDid = options.oracleDid ?? 'did:ixo:entity:mock-oracle';
  const apiUrl = (options.apiUrl ?? 'http://oracle.test').replace(/\/+$/, '');
  const wsUrl = (options.wsUrl ?? apiUrl).replace(/\/+$/, '');
  const chainRestUrl = (options.chainRestUrl ?? 'http://chain.test').replace(/\/+$/, '');
  const prefix = options.chainRoutePrefix ?? 'ixo';
  const stepDelay = options.stepDelayMs ?? 0;
  const toolTimeout = options.toolTimeoutMs ?? 15_000;
  let script: MockScript = options.script ?? DEFAULT_SCRIPT;
  let paymentRequired = options.paymentRequired ?? false;
  let delegationState = options.delegation ?? 'stored';

  const sessions: ChatSession[] = [...(options.sessions ?? [])];
  const history = new Map<string, MessageDto[]>(
    Object.entries(options.history ?? {}).map(([k, v]) => [k, [...v]]),
  );
  for (const s of sessions) if (!history.has(s.sessionId)) history.set(s.sessionId, []);
  const runs = new Map<string, MockRun>();
  const requests: RecordedRequest[] = [];
  const delegations: SerializedToken[] = [];
  const toolResults: ToolResult[] = [];
  const actionResults: ActionResult[] = [];
  const handshakes: OracleMockControl['handshakes'] = [];
  const sockets = new Set<SocketIoMockClient>();
  const waiters = new Map<string, (result: { result: unknown; error?: string }) => void>();
  const memories: Memory[] = [...(options.memories ?? [])];
  const credits: CreditsAccount = {
    balance: 100,
    price: { amount: 1, denom: 'credits', per: 'turn' },
    outstandingClaims: [],
    payTo: { address: 'ixo1mockoraclepayto', denom: 'uixo', creditsPerUnit: 0.001 },
    ...options.credits,
  };

  const config: OracleConfig = {
    did: 'did:key:z6MkMockOracle',
    entityDid: oracleDid,
    name: 'Mock oracle',
    model: 'scripted',
    price: { amount: 0, denom: 'credits', per: 'turn' },
    apiUrl,
    wsUrl,
    ...options.config,
  };
  const models: ModelInfo[] = options.models ?? [
    {
      id: 'scripted',
      label: 'Scripted',
      family: 'mock',
      tier: 'everyday',
      costLabel: 'free',
      badge: '',
      blurb: 'A deterministic scripted model',
      vision: false,
      pricing: { inputPerMillion: 0, outputPerMillion: 0, currency: 'USD', unit: 'per_million_tokens' },
      isDefault: true,
    },
  ];

  const url = (path: string): string => `${apiUrl}${path}`;

  /** Records the request and checks its tokens; a Response when it is refused. */
  const guard = async (request: Request, path: string): Promise<Response | undefined> => {
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => (headers[k] = v));
    let body: unknown;
    if (request.method !== 'GET' && request.method !== 'DELETE') {
      const text = await request.clone().text();
      body = text === '' ? undefined : (JSON.parse(text) as unknown);
    }
    requests.push({ method: request.method, path, headers, body });
    if (!headers['x-ucan-delegation']) return errorBody(401, 'auth_missing', 'No capability token was sent.');
    if (options.requireInvocation) {
      if (!headers['authorization']?.startsWith('Bearer ') || headers['x-auth-type'] !== 'ucan')
        return errorBody(401, 'auth_missing', 'No invocation was sent.');
    }
    return undefined;
  };

  const ownSession = (sessionId: string): ChatSession | undefined =>
    sessions.find((s) => s.sessionId === sessionId);
  const notFound = (): Response => errorBody(404, 'session_not_found', 'Session not found.');

  const emit = (sessionId: string, event: string, payload: unknown): void => {
    for (const s of sockets) if (s.query.get('sessionId') === sessionId) s.emit(event, payload);
  };

  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  const awaitResult = (toolCallId: string): Promise<{ result: unknown; error?: string }> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiters.delete(toolCallId);
        resolve({ result: null, error: 'The browser did not answer in time' });
      }, toolTimeout);
      waiters.set(toolCallId, (r) => {
        clearTimeout(timer);
        waiters.delete(toolCallId);
        resolve(r);
      });
    });

  /** Executes a turn's script into its run; the streams read the run. */
  const execute = async (run: MockRun, steps: MockStep[], userMessage: string): Promise<void> => {
    const { sessionId, requestId } = run;
    const toolCalls: StoredToolCall[] = [];
    const pause = () => (stepDelay > 0 ? sleep(stepDelay) : Promise.resolve());
    run.append('run', { runId: run.runId, requestId, sessionId });
    for (const step of steps) {
      if (run.abortRequested) break;
      switch (step.type) {
        case 'text':
        case 'reasoning': {
          const chunks =
            step.type === 'text' && step.chunk === 'whole'
              ? [step.text]
              : (step.text.match(/\S+\s*|\s+/g) ?? []);
          for (const chunk of chunks) {
            if (run.abortRequested) break;
            await pause();
            if (step.type === 'text') {
              run.text += chunk;
              run.append('message', { content: chunk, timestamp: now() });
            } else {
              run.append('reasoning', { sessionId, requestId, reasoning: chunk, isComplete: false });
            }
          }
          if (step.type === 'reasoning')
            run.append('reasoning', { sessionId, requestId, reasoning: '', isComplete: true });
          break;
        }
        case 'tool_call': {
          await pause();
          const toolCallId = nextId('call');
          const args = step.args ?? {};
          const base = {
            sessionId,
            requestId,
            toolCallId,
            eventId: toolCallId,
            toolName: step.toolName,
            args,
          };
          run.append('tool_call', { ...base, status: 'isRunning' });
          emit(sessionId, 'tool_call', { ...base, status: 'isRunning' });
          await pause();
          const end =
            step.error !== undefined
              ? { ...base, status: 'error' as const, error: step.error }
              : { ...base, status: 'done' as const, output: JSON.stringify(step.output ?? null) };
          run.append('tool_call', end);
          emit(sessionId, 'tool_call', end);
          toolCalls.push({
            id: toolCallId,
            name: step.toolName,
            kind: 'tool',
            args,
            status: end.status,
            ...(end.status === 'done' ? { output: end.output } : { error: step.error }),
          });
          break;
        }
        case 'render_component': {
          await pause();
          const eventId = nextId('cmp');
          const payload = {
            sessionId,
            requestId,
            eventId,
            componentName: step.componentName,
            args: step.args,
            status: 'done' as const,
          };
          run.append('render_component', payload);
          emit(sessionId, 'render_component', payload);
          toolCalls.push({
            id: eventId,
            name: step.componentName,
            kind: 'component',
            args: step.args,
            status: 'done',
          });
          break;
        }
        case 'browser_tool_call': {
          await pause();
          const toolCallId = nextId('btc');
          const payload = { sessionId, requestId, toolCallId, toolName: step.toolName, args: step.args };
          run.append('browser_tool_call', payload);
          const answer = awaitResult(toolCallId);
          emit(sessionId, 'browser_tool_call', payload);
          const r = await answer;
          toolCalls.push({
            id: toolCallId,
            name: step.toolName,
            kind: 'browser_tool',
            args: step.args,
            status: r.error !== undefined ? 'error' : 'done',
            ...(r.error !== undefined ? { error: r.error } : { output: JSON.stringify(r.result ?? null) }),
          });
          break;
        }
        case 'action_call': {
          await pause();
          const toolCallId = nextId('act');
          const start = {
            sessionId,
            requestId,
            toolCallId,
            toolName: step.toolName,
            args: step.args,
            status: 'isRunning' as const,
          };
          run.append('action_call', start);
          const answer = awaitResult(toolCallId);
          emit(sessionId, 'action_call', start);
          const r = await answer;
          const end =
            r.error !== undefined
              ? { ...start, status: 'error' as const, error: r.error }
              : { ...start, status: 'done' as const, output: JSON.stringify(r.result ?? null) };
          run.append('action_call', end);
          toolCalls.push({
            id: toolCallId,
            name: step.toolName,
            kind: 'action',
            args: step.args,
            status: end.status,
            ...(end.status === 'done' ? { output: end.output } : { error: r.error }),
          });
          break;
        }
        case 'error':
          run.append('error', { error: step.error, timestamp: now() });
          run.finish('failed');
          break;
        case 'delay':
          await sleep(step.ms);
          break;
        case 'drop':
          run.dropStreams();
          break;
      }
      if (run.ended) break;
    }
    if (!run.ended) run.finish(run.abortRequested ? 'aborted' : 'finished');
    const thread = history.get(sessionId) ?? [];
    thread.push({ id: nextId('msg'), type: 'human', content: userMessage, createdAt: run.createdAt });
    thread.push({
      id: requestId,
      type: 'ai',
      content: run.text,
      createdAt: now(),
      isComplete: true,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(run.status !== 'finished' && run.status !== 'running'
        ? { runStatus: run.status as 'aborted' | 'interrupted' | 'failed' }
        : {}),
    });
    history.set(sessionId, thread);
    const session = ownSession(sessionId);
    if (session) {
      session.lastUpdatedAt = now();
      session.title ??= userMessage.slice(0, 40);
    }
  };

  const eventStream = (run: MockRun, after: number, signal: AbortSignal): Response =>
    new Response(run.stream(after, signal), {
      headers: {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        'x-request-id': run.requestId,
        'x-run-id': run.runId,
      },
    });

  const transcriptPage = (thread: MessageDto[], query: URLSearchParams): TranscriptPage => {
    const limit = Math.min(200, Math.max(1, Number(query.get('limit') ?? 20)));
    const before = query.get('before');
    const after = query.get('after');
    let start: number;
    let end: number;
    if (before !== null) {
      end = Math.max(0, Number(before));
      start = Math.max(0, end - limit);
    } else if (after !== null) {
      start = Math.min(thread.length, Number(after));
      end = Math.min(thread.length, start + limit);
    } else {
      end = thread.length;
      start = Math.max(0, end - limit);
    }
    return {
      messages: thread.slice(start, end),
      prevCursor: start > 0 ? String(start) : null,
      nextCursor: end < thread.length ? String(end) : null,
      hasOlder: start > 0,
      hasNewer: end < thread.length,
    };
  };

  const entityDoc = (): { entity: Entity; iidDocument: IidDocument } => ({
    entity: {
      id: oracleDid,
      type: 'oracle',
      start_date: null,
      end_date: null,
      status: 0,
      relayer_node: oracleDid,
      credentials: [],
      entity_verified: true,
      metadata: { version_id: '1', created: '2026-01-01T00:00:00Z', updated: '2026-01-01T00:00:00Z' },
      accounts: [],
    },
    iidDocument: {
      context: [],
      id: oracleDid,
      controller: [oracleDid],
      verificationMethod: [],
      service: [
        { id: `${oracleDid}#api`, type: 'oracleService', serviceEndpoint: `${apiUrl}/` },
        { id: `${oracleDid}#ws`, type: 'wsService', serviceEndpoint: `${wsUrl}/` },
      ],
      authentication: [],
      assertionMethod: [],
      keyAgreement: [],
      capabilityInvocation: [],
      capabilityDelegation: [],
      linkedResource: [],
      linkedClaim: [],
      accordedRight: [],
      linkedEntity: [],
      alsoKnownAs: '',
      metadata: null,
    },
  });

  // socket.io's default path `/socket.io/`; msw 2.x matches it with that path segment removed, so both forms.
  const socketLink = ws.link(new RegExp(`^${escapeRegExp(wsOrigin(wsUrl))}/(socket\\.io/)?$`));

  const handlers: Array<HttpHandler | WebSocketHandler> = [
    // --- chain: config resolution ---
    http.get(`${chainRestUrl}/${prefix}/entity/:id`, ({ params }) => {
      const id = decodeURIComponent(String(params['id']));
      if (id !== oracleDid)
        return HttpResponse.json(
          { code: 5, message: `entity ${id} not found`, details: [] },
          { status: 404 },
        );
      return HttpResponse.json(entityDoc());
    }),
    // --- public ---
    http.get(url(oracleContract.config.path), () => HttpResponse.json<OracleConfig>(config)),
    http.get(url(oracleContract.models.path), () =>
      HttpResponse.json<{ models: ModelInfo[]; default: string }>({
        models,
        default: models.find((m) => m.isDefault)?.id ?? models[0]?.id ?? 'scripted',
      }),
    ),
    // --- sessions ---
    http.post(url(oracleContract.createSession.path), async ({ request }) => {
      const refused = await guard(request, '/sessions');
      if (refused) return refused;
      const body = (requests.at(-1)?.body ?? {}) as { title?: string };
      const session: ChatSession = {
        sessionId: nextId('ses'),
        createdAt: now(),
        lastUpdatedAt: now(),
        oracleName: config.name,
        oracleDid: config.did,
        oracleEntityDid: oracleDid,
        ...(body.title ? { title: body.title } : {}),
      };
      sessions.unshift(session);
      history.set(session.sessionId, []);
      return HttpResponse.json<ChatSession>(session, { status: 201 });
    }),
    http.get(url(oracleContract.listSessions.path), async ({ request }) => {
      const refused = await guard(request, '/sessions');
      if (refused) return refused;
      const q = new URL(request.url).searchParams;
      const limit = Number(q.get('limit') ?? 20);
      const offset = Number(q.get('offset') ?? 0);
      return HttpResponse.json<SessionPage>({
        sessions: sessions.slice(offset, offset + limit),
        total: sessions.length,
      });
    }),
    http.delete(url(oracleContract.deleteSession.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const refused = await guard(request, `/sessions/${sessionId}`);
      if (refused) return refused;
      const i = sessions.findIndex((s) => s.sessionId === sessionId);
      if (i === -1) return notFound();
      sessions.splice(i, 1);
      history.delete(sessionId);
      return HttpResponse.json<{ message: string }>({ message: 'Session deleted' });
    }),
    http.get(url(oracleContract.transcript.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const refused = await guard(request, `/sessions/${sessionId}/messages`);
      if (refused) return refused;
      if (options.legacyHistoryOnly) return errorBody(404, 'not_found', 'No such route.');
      const thread = history.get(sessionId);
      if (!thread) return notFound();
      return HttpResponse.json<TranscriptPage>(transcriptPage(thread, new URL(request.url).searchParams));
    }),
    http.get(url(oracleContract.currentRun.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const refused = await guard(request, `/sessions/${sessionId}/run`);
      if (refused) return refused;
      const run = latestRun(sessionId);
      if (!run) return errorBody(404, 'not_found', 'No run.');
      return HttpResponse.json<{ run: RunInfo }>({ run: run.info() });
    }),
    http.post(url(oracleContract.abort.path), async ({ request }) => {
      const refused = await guard(request, '/messages/abort');
      if (refused) return refused;
      const { sessionId } = requests.at(-1)?.body as { sessionId: string };
      const run = latestRun(sessionId);
      const live = run !== undefined && !run.ended;
      if (run && live) run.abortRequested = true;
      return HttpResponse.json<{ success: boolean }>({ success: live });
    }),
    http.get(url(oracleContract.history.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const refused = await guard(request, `/messages/${sessionId}`);
      if (refused) return refused;
      const thread = history.get(sessionId);
      if (!thread) return notFound();
      return HttpResponse.json<{ messages: MessageDto[] }>({ messages: thread });
    }),
    http.post(url(oracleContract.send.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const refused = await guard(request, `/messages/${sessionId}`);
      if (refused) return refused;
      if (!history.has(sessionId)) return notFound();
      if (delegationState !== 'stored')
        return errorBody(
          401,
          delegationState === 'missing' ? 'delegation_missing' : 'delegation_expired',
          'Post a delegation to /delegation.',
        );
      if (paymentRequired)
        return errorBody(402, 'payment_required', 'Your credits do not cover this turn.', {
          outstandingClaims: paymentRequired,
        });
      const body = requests.at(-1)?.body as SendMessageBody;
      // One stream per session: a new message ends the previous turn.
      const previous = latestRun(sessionId);
      if (previous && !previous.ended) previous.abortRequested = true;
      const run = new MockRun(nextId('run'), nextId('req'), sessionId);
      runs.set(run.runId, run);
      const steps = typeof script === 'function' ? script({ sessionId, body }) : script;
      const response = eventStream(run, 0, request.signal);
      void execute(run, steps, body.message);
      return response;
    }),
    http.get(url(oracleContract.rejoinRun.path), async ({ request, params }) => {
      const runId = String(params['runId']);
      const refused = await guard(request, `/runs/${runId}`);
      if (refused) return refused;
      const run = runs.get(runId);
      if (!run) return errorBody(404, 'not_found', 'Run not found.');
      const q = new URL(request.url).searchParams;
      const after = Number(q.get('after') ?? request.headers.get('last-event-id') ?? 0);
      return eventStream(run, Number.isFinite(after) ? after : 0, request.signal);
    }),
    http.post(url(oracleContract.storeDelegation.path), async ({ request }) => {
      const refused = await guard(request, '/delegation');
      if (refused) return refused;
      const token = requests.at(-1)?.body as SerializedToken;
      delegations.push(token);
      delegationState = 'stored';
      return HttpResponse.json({
        issuer: 'did:key:z6MkMockUser',
        audience: config.did,
        expiresAt: token.expiresAt,
      });
    }),
    // --- credits and memory ---
    http.get(url(creditsContract.account.path), async ({ request }) => {
      const refused = await guard(request, '/credits');
      if (refused) return refused;
      return HttpResponse.json<CreditsAccount>({ ...credits, outstandingClaims: paymentRequired || [] });
    }),
    http.post(url(creditsContract.pay.path), async ({ request }) => {
      const refused = await guard(request, '/credits/payments');
      if (refused) return refused;
      const { amount } = requests.at(-1)?.body as { amount: { amount: string } };
      credits.balance += Number(amount.amount) * credits.payTo.creditsPerUnit;
      const settledClaims = paymentRequired || [];
      paymentRequired = false;
      return HttpResponse.json<{ balance: number; settledClaims: string[] }>({
        balance: credits.balance,
        settledClaims,
      });
    }),
    http.get(url(memoryContract.list.path), async ({ request }) => {
      const refused = await guard(request, '/memory');
      if (refused) return refused;
      const q = new URL(request.url).searchParams.get('q')?.toLowerCase();
      const found = memories.filter((m) => !q || m.content.toLowerCase().includes(q) || m.tags.includes(q));
      return HttpResponse.json<{ memories: Memory[]; total: number }>({
        memories: found,
        total: found.length,
      });
    }),
    http.post(url(memoryContract.remember.path), async ({ request }) => {
      const refused = await guard(request, '/memory');
      if (refused) return refused;
      const body = requests.at(-1)?.body as { content: string; tags?: string[] };
      const memory: Memory = {
        id: nextId('mem'),
        content: body.content,
        tags: body.tags ?? [],
        createdAt: now(),
      };
      memories.unshift(memory);
      return HttpResponse.json<Memory>(memory, { status: 201 });
    }),
    http.delete(url(memoryContract.forget.path), async ({ request, params }) => {
      const memoryId = String(params['memoryId']);
      const refused = await guard(request, `/memory/${memoryId}`);
      if (refused) return refused;
      const i = memories.findIndex((m) => m.id === memoryId);
      if (i === -1) return errorBody(404, 'not_found', 'Memory not found.');
      memories.splice(i, 1);
      return HttpResponse.json<{ message: string }>({ message: 'Forgotten' });
    }),
    // --- socket.io channel ---
    socketLink.addEventListener('connection', ({ client }) => {
      const socket = new SocketIoMockClient(client, {
        onConnect: (s) => {
          const query = Object.fromEntries(s.query.entries());
          const refusal =
            options.socketAuth?.({ query: s.query, auth: s.auth }) ??
            (typeof s.auth?.['ucanDelegation'] !== 'string' || s.auth['ucanDelegation'] === ''
              ? 'auth_missing'
              : !s.query.get('sessionId') || !s.query.get('userDid')
                ? 'sessionId and userDid are required'
                : undefined);
          handshakes.push({ query, auth: s.auth, accepted: refusal === undefined });
          if (refusal === undefined) {
            sockets.add(s);
            queueMicrotask(() =>
              s.emit('connected', {
                message: 'connected',
                sessionId: s.query.get('sessionId') ?? '',
                timestamp: now(),
              }),
            );
          }
          return refusal;
        },
        onEvent: (_s, name, payload) => {
          if (name === 'tool_result') {
            const p = ToolResultEvent.safeParse(payload);
            if (!p.success) return;
            toolResults.push(p.data);
            waiters.get(p.data.toolCallId)?.({
              result: p.data.result,
              ...(p.data.error !== undefined ? { error: p.data.error } : {}),
            });
          } else if (name === 'action_call_result') {
            const p = ActionCallResultEvent.safeParse(payload);
            if (!p.success) return;
            actionResults.push(p.data);
            waiters.get(p.data.toolCallId)?.({
              result: p.data.result,
              ...(p.data.error !== undefined ? { error: p.data.error } : {}),
            });
          }
        },
        onClose: (s) => sockets.delete(s),
      });
      void socket;
    }),
  ];

  if (options.matrixHomeServer) {
    const hs = options.matrixHomeServer.replace(/\/+$/, '');
    handlers.push(
      http.get(`${hs}/_matrix/client/v3/account/whoami`, ({ request }) =>
        request.headers.get('authorization')?.startsWith('Bearer ')
          ? HttpResponse.json({ user_id: '@mock-user:matrix.test' })
          : HttpResponse.json({ errcode: 'M_MISSING_TOKEN', error: 'Missing access token' }, { status: 401 }),
      ),
      http.post(`${hs}/_matrix/client/v3/user/:userId/openid/request_token`, () =>
        HttpResponse.json({
          access_token: 'mock-openid-token',
          token_type: 'Bearer',
          matrix_server_name: 'matrix.test',
          expires_in: 3600,
        }),
      ),
    );
  }

  function latestRun(sessionId: string): MockRun | undefined {
    let latest: MockRun | undefined;
    for (const r of runs.values()) if (r.sessionId === sessionId) latest = r;
    return latest;
  }

  const control: OracleMockControl = {
    oracleDid,
    apiUrl,
    wsUrl,
    chainRestUrl,
    requests,
    sessions,
    history,
    runs,
    delegations,
    toolResults,
    actionResults,
    handshakes,
    emit,
    dropSockets: (sessionId) => {
      for (const s of [...sockets]) if (!sessionId || s.query.get('sessionId') === sessionId) s.drop();
    },
    setScript: (s) => {
      script = s;
    },
    setPaymentRequired: (claims) => {
      paymentRequired = claims;
    },
    latestRun,
  };
  return Object.assign(handlers, { control });
}
