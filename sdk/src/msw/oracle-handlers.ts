import type { HttpHandler, WebSocketHandler } from 'msw';
import { accountHandlers } from './handlers/account.js';
import { chainHandlers } from './handlers/chain.js';
import { matrixHandlers } from './handlers/matrix.js';
import { messageHandlers } from './handlers/messages.js';
import { sessionHandlers } from './handlers/sessions.js';
import { socketHandler } from './handlers/socket.js';
import { createMockState, emitTo, latestRun } from './mock-state.js';
import type { OracleHandlers, OracleMockControl, OracleMockOptions } from './types.js';

export { DEFAULT_SCRIPT } from './types.js';
export type {
  MockScript,
  MockStep,
  OracleHandlers,
  OracleMockControl,
  OracleMockOptions,
  PaymentReportAnswer,
  RecordedRequest,
} from './types.js';

/**
 * msw 2 handlers of a mocked oracle and its chain entity, typed from the same contracts as the SDK: config
 * resolution through the chain REST route, `/config`, `/models`, sessions, paged and legacy history, scripted
 * SSE turns with durable runs (re-join, abort, pick-up), the socket.io channel (browser tools and actions
 * round-trip), `/delegation`, credits, memory, `/user-preferences`, and the 401 and 402 scenarios. Each
 * handler reads its own request's body, so overlapping requests never mix.
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
  const state = createMockState(options);
  const handlers: Array<HttpHandler | WebSocketHandler> = [
    ...chainHandlers(state),
    ...sessionHandlers(state),
    ...messageHandlers(state),
    ...accountHandlers(state),
    socketHandler(state),
    ...(options.matrixHomeServer ? matrixHandlers(options.matrixHomeServer) : []),
  ];
  const control: OracleMockControl = {
    oracleDid: state.oracleDid,
    apiUrl: state.apiUrl,
    wsUrl: state.wsUrl,
    chainRestUrl: state.chainRestUrl,
    requests: state.requests,
    sessions: state.sessions,
    history: state.history,
    runs: state.runs,
    delegations: state.delegations,
    toolResults: state.toolResults,
    actionResults: state.actionResults,
    handshakes: state.handshakes,
    errors: state.errors,
    preferences: () => state.preferences,
    emit: (sessionId, event, payload) => emitTo(state, sessionId, event, payload),
    dropSockets: (sessionId) => {
      for (const s of [...state.sockets]) if (!sessionId || s.query.get('sessionId') === sessionId) s.drop();
    },
    setScript: (s) => {
      state.script = s;
    },
    setPaymentRequired: (claims) => {
      state.paymentRequired = claims;
    },
    answerPaymentReports: (answers) => {
      state.paymentReports.push(...answers);
    },
    latestRun: (sessionId) => latestRun(state, sessionId),
    pendingApprovals: () => [...state.approvals.values()].filter((a) => !a.decided).map((a) => a.pending),
    decideApproval: (toolCallId, approved, reason) => {
      const waiting = state.approvals.get(toolCallId);
      if (!waiting || waiting.decided) return false;
      waiting.decided = true;
      waiting.decide({ approved, ...(reason ? { reason } : {}) });
      return true;
    },
  };
  return Object.assign(handlers, { control });
}
