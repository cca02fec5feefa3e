import type { BrowserToolCallEvent, ClientEventName, ClientEventPayload } from '../../../contracts/events.js';
import type { PendingApproval } from '../../../contracts/oracle.js';
import type { ActionRegistry } from '../tools/action-registry.js';
import type { OracleHttp } from '../http/oracle-http.js';
import type { CallOutcome } from '../tools/run-call.js';
import type { BrowserTool } from '../types.js';
import { BrowserCalls } from './browser-calls.js';
import type { ChatStore } from './chat-store.js';
import { applyPart, markStatus, settlePart } from './event-reducer.js';

/** How long a browser tool call waits for its user in this tab, as `expiresAt` says (the oracle decides the rest). */
const BROWSER_APPROVAL_MS = 10 * 60_000;
import { handshakeAuth, SocketChannel } from './socket-channel.js';
import {
  parseSocketEvent,
  routeSocketEvent,
  socketEventTarget,
  type SocketEvent,
  type SocketEventSink,
} from './socket-events.js';

export interface ChatSocketDeps {
  sessionId: string;
  userDid: string;
  actions: ActionRegistry;
  /** The browser tools of every `useChat` of the session, read at call time. */
  tools: () => Record<string, BrowserTool>;
  /** Where the socket's parts show. */
  store: ChatStore;
  /** The answer of the turn in flight, if any (a socket event of another request shows there). */
  turnRequestId: () => string | undefined;
  retryBaseMs?: number | undefined;
}

/**
 * A chat's side of the socket: opens the {@link SocketChannel} with the oracle's tokens, routes its events
 * ({@link routeSocketEvent}) into the store's messages, runs browser tools and actions ({@link BrowserCalls})
 * and sends their results back. One per chat; opened and closed with the chat's first and last hook.
 */
export class ChatSocket {
  readonly #deps: ChatSocketDeps;
  readonly #calls: BrowserCalls;
  readonly #sink: SocketEventSink;
  #channel: SocketChannel | undefined;
  /** Browser tool calls waiting for the user here, by call id. */
  readonly #asked = new Map<
    string,
    { pending: PendingApproval; decide: (d: { approved: boolean; reason?: string | undefined }) => void }
  >();

  constructor(deps: ChatSocketDeps) {
    this.#deps = deps;
    this.#calls = new BrowserCalls({
      sessionId: deps.sessionId,
      tools: deps.tools,
      actions: deps.actions,
      emit: (name, payload) => this.emit(name, payload),
      ask: (call) => this.#ask(call),
    });
    this.#sink = {
      show: (event) => this.#show(event),
      hasRun: (id) => this.#calls.has(id),
      runBrowserTool: (call) => this.#calls.runBrowserTool(call),
      runAction: (call) => this.#calls.runAction(call),
      settle: (id, outcome, args) => this.#settle(id, outcome, args),
    };
  }

  /** Connects to `wsUrl`, each handshake carrying the tokens of `http`; connection changes go to the store. */
  open(http: OracleHttp, wsUrl: string): void {
    const { store, sessionId } = this.#deps;
    this.#channel = new SocketChannel({
      wsUrl,
      sessionId,
      userDid: this.#deps.userDid,
      retryBaseMs: this.#deps.retryBaseMs,
      auth: handshakeAuth(http),
      onEvent: (name, payload) => {
        const event = parseSocketEvent(name, payload, sessionId);
        if (event) routeSocketEvent(event, this.#sink);
      },
      onConnectedChange: (connected) => store.setMeta({ isRealTimeConnected: connected }),
      onRefused: (error) => store.setMeta({ error, isRealTimeConnected: false }),
    });
    this.#channel.connect();
  }

  /** Sends a client event to the oracle (dropped when the socket is closed). */
  emit<N extends ClientEventName>(name: N, payload: ClientEventPayload<N>): void {
    this.#channel?.emit(name, payload);
  }

  close(): void {
    this.#channel?.close();
    this.#channel = undefined;
  }

  /** Decides a browser tool call waiting in this tab; false when no such call waits here. */
  decideLocal(toolCallId: string, decision: { approved: boolean; reason?: string | undefined }): boolean {
    const waiting = this.#asked.get(toolCallId);
    if (!waiting) return false;
    this.#asked.delete(toolCallId);
    this.#deps.store.setLocalApprovals([...this.#asked.values()].map((w) => w.pending));
    if (decision.approved) this.#mark(toolCallId, 'isRunning');
    waiting.decide(decision);
    return true;
  }

  /** A browser tool with `needsApproval` asks its user: the call waits in `pendingApprovals`, its part shows it. */
  #ask(call: BrowserToolCallEvent): Promise<{ approved: boolean; reason?: string | undefined }> {
    const { store } = this.#deps;
    return new Promise((decide) => {
      const pending = {
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        args: call.args,
        expiresAt: new Date(Date.now() + BROWSER_APPROVAL_MS).toISOString(),
      };
      this.#asked.set(call.toolCallId, { pending, decide });
      store.setLocalApprovals([...this.#asked.values()].map((w) => w.pending));
      this.#mark(call.toolCallId, 'awaiting_approval');
    });
  }

  #mark(id: string, status: 'awaiting_approval' | 'isRunning'): void {
    const { store } = this.#deps;
    for (const m of store.current()) {
      const next = markStatus(m, id, status);
      if (next !== m) {
        store.upsert(m.id, () => next);
        store.flush();
        return;
      }
    }
  }

  /** Socket events show in the message of their turn when it is on screen (the stream shows them too). */
  #show(event: SocketEvent): void {
    const { store } = this.#deps;
    const target = socketEventTarget(event, (id) => store.find(id) !== undefined, this.#deps.turnRequestId());
    if (!target) return;
    store.upsert(target, (old) => applyPart(old ?? { id: target, type: 'ai', content: '' }, event));
    store.flush();
  }

  /** Marks a browser-tool or action part done (or failed) with its result, in whichever message holds it. */
  #settle(id: string, outcome: CallOutcome | undefined, args?: Record<string, unknown>): void {
    if (!outcome) return;
    const { store } = this.#deps;
    for (const m of store.current()) {
      const next = settlePart(m, id, outcome, args);
      if (next !== m) {
        store.upsert(m.id, () => next);
        store.flush();
        return;
      }
    }
  }
}
