import type { PendingApproval } from '../../../contracts/oracle.js';
import { HttpResponse } from 'msw';
import type { CreditsAccount } from '../../../contracts/credits.js';
import type { ApiErrorCode, OracleError, OracleErrorCode } from '../../../contracts/errors.js';
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
  SerializedToken,
} from '../../../contracts/oracle.js';
import type { UserPreferences } from '../../../contracts/preferences.js';
import type { MockRun } from './mock-run.js';
import type { SocketIoMockClient } from './socket-io-mock.js';
import {
  DEFAULT_SCRIPT,
  type MockScript,
  type OracleMockControl,
  type OracleMockOptions,
  type PaymentReportAnswer,
  type RecordedRequest,
} from './types.js';

/** Everything the mocked oracle holds and the helpers its handlers share. */
export interface MockState {
  readonly options: OracleMockOptions;
  readonly oracleDid: string;
  readonly apiUrl: string;
  readonly wsUrl: string;
  readonly chainRestUrl: string;
  readonly prefix: string;
  readonly stepDelay: number;
  readonly toolTimeout: number;
  /** How long a scripted browser tool call or action waits for its session's socket, ms. */
  readonly socketWait: number;
  script: MockScript;
  paymentRequired: string[] | false;
  /** Scripted answers of the next payment reports, first first. */
  readonly paymentReports: PaymentReportAnswer[];
  /** The first answer of each credited txHash (a report of it again answers the same, crediting nothing). */
  readonly credited: Map<string, { balance: number; settledClaims: string[] }>;
  delegationState: 'stored' | 'missing' | 'expired';
  preferences: UserPreferences | null;
  readonly config: OracleConfig;
  readonly models: ModelInfo[];
  readonly credits: CreditsAccount;
  readonly sessions: ChatSession[];
  readonly history: Map<string, MessageDto[]>;
  readonly runs: Map<string, MockRun>;
  readonly requests: RecordedRequest[];
  readonly delegations: SerializedToken[];
  readonly toolResults: ToolResult[];
  readonly actionResults: ActionResult[];
  readonly handshakes: OracleMockControl['handshakes'];
  readonly sockets: Set<SocketIoMockClient>;
  /** Called after each accepted handshake (once the client has `connected`). */
  readonly socketListeners: Set<() => void>;
  readonly errors: Error[];
  readonly waiters: Map<string, (result: { result: unknown; error?: string }) => void>;
  /** Scripted tool calls waiting for approval: what was asked, and how to decide it. */
  readonly approvals: Map<
    string,
    {
      pending: PendingApproval;
      sessionId: string;
      /** The run whose call waits (history shows its answer so far while it waits). */
      runId: string;
      decide: (d: { approved: boolean; reason?: string }) => void;
      /** Decided already: a second decision answers 409, as the oracle does. */
      decided: boolean;
    }
  >;
  readonly memories: Memory[];
}

export const now = (): string => new Date().toISOString();
let counter = 0;
export const nextId = (prefix: string): string =>
  `${prefix}_${Date.now().toString(36)}${(++counter).toString(36)}`;
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The service's JSON error answer. */
export const errorBody = (
  statusCode: number,
  code: OracleErrorCode | ApiErrorCode,
  message: string,
  extra: Partial<OracleError> = {},
): Response =>
  HttpResponse.json<OracleError>(
    { code, message, statusCode, requestId: nextId('req'), ...extra },
    { status: statusCode },
  );

export function createMockState(options: OracleMockOptions): MockState {
  const oracleDid = options.oracleDid ?? 'did:ixo:entity:mock-oracle';
  const apiUrl = (options.apiUrl ?? 'http://oracle.test').replace(/\/+$/, '');
  const wsUrl = (options.wsUrl ?? apiUrl).replace(/\/+$/, '');
  const sessions: ChatSession[] = [...(options.sessions ?? [])];
  const history = new Map<string, MessageDto[]>(
    Object.entries(options.history ?? {}).map(([k, v]) => [k, [...v]]),
  );
  for (const s of sessions) if (!history.has(s.sessionId)) history.set(s.sessionId, []);
  return {
    options,
    oracleDid,
    apiUrl,
    wsUrl,
    chainRestUrl: (options.chainRestUrl ?? 'http://chain.test').replace(/\/+$/, ''),
    prefix: options.chainRoutePrefix ?? 'ixo',
    stepDelay: options.stepDelayMs ?? 0,
    toolTimeout: options.toolTimeoutMs ?? 15_000,
    socketWait: options.socketWaitMs ?? 5_000,
    script: options.script ?? DEFAULT_SCRIPT,
    paymentRequired: options.paymentRequired ?? false,
    paymentReports: [...(options.paymentReports ?? [])],
    credited: new Map(),
    delegationState: options.delegation ?? 'stored',
    preferences: options.preferences ?? null,
    config: {
      did: 'did:key:z6MkMockOracle',
      entityDid: oracleDid,
      name: 'Mock oracle',
      model: 'scripted',
      price: { amount: 0, denom: 'credits', per: 'turn' },
      apiUrl,
      wsUrl,
      ...options.config,
    },
    models: options.models ?? [
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
    ],
    credits: {
      balance: 100,
      price: { amount: 1, denom: 'credits', per: 'turn' },
      outstandingClaims: [],
      payTo: { address: 'ixo1mockoraclepayto', denom: 'uixo', creditsPerUnit: 0.001 },
      paymentMemo: 'pay_00000000000000000000000000000000',
      ...options.credits,
    },
    sessions,
    history,
    runs: new Map(),
    requests: [],
    delegations: [],
    toolResults: [],
    actionResults: [],
    handshakes: [],
    sockets: new Set(),
    socketListeners: new Set(),
    errors: [],
    waiters: new Map(),
    approvals: new Map(),
    memories: [...(options.memories ?? [])],
  };
}

/** The absolute URL of a route path of the mocked oracle. */
export const routeUrl = (state: MockState, path: string): string => `${state.apiUrl}${path}`;

/**
 * Records a request (with its own body, read from this request: never another's) and checks its tokens.
 * Returns the parsed body, or the refusal to answer with.
 */
export async function guard<B = unknown>(
  state: MockState,
  request: Request,
  path: string,
): Promise<{ refused: Response; body?: undefined } | { refused?: undefined; body: B }> {
  const headers: Record<string, string> = {};
  request.headers.forEach((v, k) => (headers[k] = v));
  let body: unknown;
  if (request.method !== 'GET' && request.method !== 'DELETE') {
    const text = await request.clone().text();
    try {
      body = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      state.requests.push({ method: request.method, path, headers, body: text });
      return { refused: errorBody(400, 'bad_request', 'The body is not JSON.') };
    }
  }
  state.requests.push({ method: request.method, path, headers, body });
  if (!headers['x-ucan-delegation'])
    return { refused: errorBody(401, 'auth_missing', 'No capability token was sent.') };
  if (state.options.requireInvocation) {
    if (!headers['authorization']?.startsWith('Bearer ') || headers['x-auth-type'] !== 'ucan')
      return { refused: errorBody(401, 'auth_missing', 'No invocation was sent.') };
  }
  return { body: body as B };
}

/** Sends a socket event (raw payload) to the sockets of a session. */
export function emitTo(state: MockState, sessionId: string, event: string, payload: unknown): void {
  for (const s of state.sockets) if (s.query.get('sessionId') === sessionId) s.emit(event, payload);
}

/** Whether a session has a socket whose handshake was accepted and that is still open. */
function hasSocket(state: MockState, sessionId: string): boolean {
  for (const s of state.sockets) if (s.connected && s.query.get('sessionId') === sessionId) return true;
  return false;
}

/** Resolves true once the session has a connected socket, or false after `state.socketWait` ms. */
export function waitForSocket(state: MockState, sessionId: string): Promise<boolean> {
  if (hasSocket(state, sessionId)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const check = (): void => {
      if (hasSocket(state, sessionId)) settle(true);
    };
    const timer = setTimeout(() => settle(false), state.socketWait);
    function settle(connected: boolean): void {
      clearTimeout(timer);
      state.socketListeners.delete(check);
      resolve(connected);
    }
    state.socketListeners.add(check);
  });
}

/** Waits for the browser's result of a call (or the tool timeout). */
export function awaitResult(
  state: MockState,
  toolCallId: string,
): Promise<{ result: unknown; error?: string }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      state.waiters.delete(toolCallId);
      resolve({ result: null, error: 'The browser did not answer in time' });
    }, state.toolTimeout);
    state.waiters.set(toolCallId, (r) => {
      clearTimeout(timer);
      state.waiters.delete(toolCallId);
      resolve(r);
    });
  });
}

/** The latest run of a session. */
export function latestRun(state: MockState, sessionId: string): MockRun | undefined {
  let latest: MockRun | undefined;
  for (const r of state.runs.values()) if (r.sessionId === sessionId) latest = r;
  return latest;
}
