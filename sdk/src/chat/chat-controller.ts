import type { ActionRegistry } from '../tools/action-registry.js';
import type { OracleHttp } from '../http/oracle-http.js';
import { isAbortError, isPaymentRequired } from '../http/oracle-request-error.js';
import type { IChatOptions, IMessage } from '../types.js';
import { sleep } from '../util/backoff.js';
import { ChatSocket } from './chat-socket.js';
import { ChatStore, INITIAL_RUN } from './chat-store.js';
import { ChatTransport, RunDisconnectedError } from './chat-transport.js';
import { newTurnState, type TurnState } from './event-reducer.js';
import { ChatHistory } from './history.js';
import { messageBody, optimisticMessage, type SendExtras } from './message-body.js';
import { Participants } from './participants.js';
import type { StreamEvent } from './sse.js';
import { Turn } from './turn.js';

/** Where the controller talks to, once the oracle's config has resolved. */
export interface ChatEndpoints {
  http: OracleHttp;
  wsUrl: string | undefined;
}

export interface ChatControllerDeps {
  sessionId: string;
  userDid: string;
  actions: ActionRegistry;
  /** The addresses for a call made before the hook attached (waits for the config; throws its error). */
  resolve: () => Promise<ChatEndpoints>;
  /** Called after a turn ends (the sessions list may have a new title or order). */
  onTurnEnd?: () => void;
  /** Called when a server tool call of a turn ends (e.g. `set_user_preferences` changed the preferences). */
  onToolCallDone?: (toolName: string) => void;
  socketRetryBaseMs?: number;
}

const toError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/**
 * The chat of one session, outside React, shared by every `useChat` of the session: the flow between the
 * {@link ChatStore} (what React reads), the {@link ChatTransport} (SSE and re-join), the pure reducer of
 * events (through {@link Turn}), the history ({@link ChatHistory}) and the {@link ChatSocket}. A new kind of
 * stream event is reduced in event-reducer.ts; one that arrives on the socket is routed in socket-events.ts;
 * what the user answers goes back through the transport (HTTP) or `ChatSocket.emit`.
 */
export class ChatController {
  readonly store: ChatStore;
  readonly #deps: ChatControllerDeps;
  readonly #participants = new Participants();
  readonly #socket: ChatSocket;
  #endpoints: ChatEndpoints | undefined;
  #transport: ChatTransport | undefined;
  #retained = 0;
  #epoch = 0;
  #turn: Turn | undefined;
  readonly #history: ChatHistory;

  constructor(deps: ChatControllerDeps) {
    this.#deps = deps;
    this.store = new ChatStore('batched');
    this.#history = new ChatHistory(this.store, deps.sessionId);
    this.#socket = new ChatSocket({
      sessionId: deps.sessionId,
      userDid: deps.userDid,
      actions: deps.actions,
      tools: () => this.#participants.browserTools(),
      store: this.store,
      turnRequestId: () => this.#turn?.state.requestId,
      retryBaseMs: deps.socketRetryBaseMs,
    });
  }

  get sessionId(): string {
    return this.#deps.sessionId;
  }

  /** A hook's latest options join the chat (its browser tools run, its callbacks are called). */
  join(options: () => IChatOptions): () => void {
    const leave = this.#participants.join(options);
    this.store.mode = this.#participants.options().streamingMode ?? 'batched';
    return leave;
  }

  /** One more hook uses the chat: the first one starts it (history, a run in flight, the socket). */
  retain(endpoints: ChatEndpoints): () => void {
    this.#retained++;
    if (this.#retained === 1) this.#attach(endpoints);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#retained--;
      if (this.#retained === 0) this.#detach();
    };
  }

  #attach(endpoints: ChatEndpoints): void {
    const epoch = ++this.#epoch;
    this.#setEndpoints(endpoints);
    void this.#start(epoch);
    if (endpoints.wsUrl) this.#socket.open(endpoints.http, endpoints.wsUrl);
  }

  #setEndpoints(endpoints: ChatEndpoints): void {
    this.#endpoints = endpoints;
    this.#transport = new ChatTransport(
      endpoints.http,
      this.sessionId,
      () => this.#participants.options().rejoin ?? {},
    );
  }

  /** Stops local work (streams, socket, timers); the server's run goes on and can be picked up again. */
  #detach(): void {
    this.#epoch++;
    this.#turn?.detach();
    this.#turn = undefined;
    this.#socket.close();
    this.#endpoints = undefined;
    this.store.setMeta({ isRealTimeConnected: false });
    this.store.dispose();
  }

  async #start(epoch: number): Promise<void> {
    await this.refetchMessages(epoch);
    if (epoch !== this.#epoch) return;
    await this.resumeRun();
  }

  async #ready(): Promise<ChatEndpoints> {
    if (this.#endpoints) return this.#endpoints;
    const endpoints = await this.#deps.resolve();
    if (!this.#endpoints) this.#setEndpoints(endpoints);
    return this.#endpoints ?? endpoints;
  }

  /** Loads the newest page of history into the thread on screen (see {@link ChatHistory.refresh}). */
  async refetchMessages(epoch = this.#epoch): Promise<IMessage[]> {
    const http = this.#endpoints?.http;
    if (!http) return this.store.getMessages();
    try {
      const stale = (): boolean => epoch !== this.#epoch;
      await this.#history.refresh(http, this.#pageSize(), stale, () => this.#turn?.live);
    } catch (e) {
      if (epoch === this.#epoch) {
        this.#reportPayment(e);
        this.store.setMeta({ isLoading: false, error: toError(e), status: 'error' });
      }
    }
    return this.store.getMessages();
  }

  /** Loads the page before the oldest loaded message. */
  async loadOlderMessages(): Promise<void> {
    const http = this.#endpoints?.http;
    if (!http) return;
    await this.#history
      .loadOlder(http, this.#pageSize())
      .catch((e: unknown) => this.store.setMeta({ error: toError(e) }));
  }

  #pageSize(): number {
    return this.#participants.options().historyPageSize ?? 20;
  }

  /**
   * Re-joins the session's run when one is in flight (`GET /sessions/:id/run`): after a reload, a remount or
   * `detachStream`. Does nothing while a turn is being read.
   */
  async resumeRun(): Promise<void> {
    const transport = this.#transport;
    const epoch = this.#epoch;
    if (!transport || this.#turn) return;
    const run = await transport.runInFlight();
    if (!run || epoch !== this.#epoch || this.#turn) return;
    // A call that waits for approval comes back with the run (its request event follows in the replay too).
    const pendingApprovals = run.pendingApprovals ?? [];
    const turn = this.#newTurn(
      newTurnState({ runId: run.runId, requestId: run.requestId, pendingApprovals }),
    );
    // Rebuild the answer from the run's first event: whatever history held of it (the answer so far of a run
    // that waits for approval, complete with its calls) is replaced, in its place in the thread.
    this.store.upsert(run.requestId, () => ({ id: run.requestId, type: 'ai', content: '' }));
    this.store.setRun({ ...INITIAL_RUN, runId: run.runId, requestId: run.requestId });
    this.store.setMeta({ status: 'streaming', sendMessageError: undefined });
    this.store.setTurnApprovals(pendingApprovals);
    await this.#read(turn, transport, undefined);
  }

  /** Decides a call waiting for approval (a browser tool's here, else at the oracle: a 409/404 is thrown). */
  async decideApproval(toolCallId: string, decision: { approved: boolean; reason?: string }): Promise<void> {
    if (this.#socket.decideLocal(toolCallId, decision)) return;
    const transport = this.#transport;
    if (!transport) throw new Error('The chat is not connected to its oracle yet.');
    await transport.decideApproval(toolCallId, decision);
    const turn = this.#turn;
    const pending = turn?.state.pendingApprovals ?? [];
    if (turn && pending.some((a) => a.toolCallId === toolCallId)) {
      turn.state = { ...turn.state, pendingApprovals: pending.filter((a) => a.toolCallId !== toolCallId) };
      this.store.setTurnApprovals(turn.state.pendingApprovals);
    }
  }

  /** Stops reading the answer here; the run goes on at the oracle (pick it up again with `resumeRun`). */
  detachStream(): void {
    const turn = this.#turn;
    if (!turn) return;
    turn.detach();
    turn.markDone();
    this.#clearTurn(turn);
    this.store.setRun({ reconnecting: false });
    this.store.setMeta({ status: 'ready' });
  }

  /** Sends a user message and streams the answer. `options` are the sending hook's (its callbacks). */
  async sendMessage(text: string, extras: SendExtras = {}, options?: IChatOptions): Promise<void> {
    const opts = options ?? this.#participants.options();
    if (this.sessionId === '') {
      this.store.setMeta({
        status: 'error',
        sendMessageError: new Error(
          'No session yet: create one with useOracleSessions().createSession() and pass its sessionId to useChat',
        ),
      });
      return;
    }
    // The server ends the previous stream when a new message arrives; stop reading it quietly.
    this.#turn?.detach();
    const turn = this.#newTurn(newTurnState());
    this.store.mode = opts.streamingMode ?? 'batched';
    this.store.throttleMs = opts.streamingThrottleMs;
    const question = optimisticMessage(text);
    turn.humanId = question.id;
    this.store.upsert(question.id, () => question);
    this.store.setRun(INITIAL_RUN);
    this.store.setMeta({ status: 'submitted', sendMessageError: undefined });
    try {
      await this.#ready();
      const transport = this.#transport;
      if (!transport) throw new Error('The chat was closed');
      const tools = Object.values(this.#participants.browserTools());
      const body = await messageBody(text, extras, opts, tools, this.#deps.actions.list());
      if (turn.detached) return;
      const opened = await transport.send(body, turn.abort.signal);
      turn.state = { ...turn.state, requestId: opened.requestId, runId: opened.runId };
      this.store.upsert(opened.requestId, () => ({ id: opened.requestId, type: 'ai', content: '' }));
      this.store.setRun({ runId: opened.runId ?? null, requestId: opened.requestId });
      this.store.setMeta({ status: 'streaming' });
      await this.#read(turn, transport, opened.body, opts);
    } catch (e) {
      this.#failTurn(turn, e, opts);
    }
  }

  #newTurn(state: TurnState): Turn {
    const turn = new Turn(state);
    this.#turn = turn;
    return turn;
  }

  /** Reads a run's events into the store until `done`, re-joining drops (through the transport). */
  async #read(
    turn: Turn,
    transport: ChatTransport,
    first: ReadableStream<Uint8Array> | undefined,
    opts?: IChatOptions,
  ): Promise<void> {
    try {
      const events = transport.follow(turn.state.runId, first, turn.state.lastEventId, turn.abort.signal, {
        onReconnecting: (reconnecting) => {
          if (!turn.detached && !turn.userAborted) this.store.setRun({ reconnecting });
        },
      });
      for await (const batch of events) {
        if (turn.detached) return;
        for (const ev of batch) {
          this.#apply(turn, ev);
          if (turn.state.ended) break;
        }
        this.store.commit();
        if (turn.state.ended) {
          this.#finish(turn);
          return;
        }
      }
      // The stream was stopped on purpose (abort, detach): nothing more to do here.
    } catch (e) {
      this.#failTurn(turn, e, opts);
    }
  }

  /** Applies one event to the turn and its answer; a server tool call that ended is reported. */
  #apply(turn: Turn, ev: StreamEvent): void {
    const { event } = ev;
    if (turn.apply(ev, this.store) && event.eventName === 'tool_call' && event.payload.status === 'done')
      this.#deps.onToolCallDone?.(event.payload.toolName);
  }

  /** The turn's reading failed: the send error, unless it was stopped on purpose (`ready`, or quietly). */
  #failTurn(turn: Turn, e: unknown, opts?: IChatOptions): void {
    turn.markDone();
    const disconnected = e instanceof RunDisconnectedError;
    if (turn.detached || (disconnected && turn.userAborted)) return;
    this.#clearTurn(turn);
    if (turn.userAborted || isAbortError(e)) {
      this.store.setMeta({ status: 'ready' });
      return;
    }
    this.#reportPayment(e, opts);
    this.store.setRun({ reconnecting: false, ...(disconnected ? { ended: 'disconnected' as const } : {}) });
    this.store.setMeta({ status: 'error', sendMessageError: toError(e) });
  }

  #finish(turn: Turn): void {
    turn.markDone();
    this.#clearTurn(turn);
    turn.landEnded(this.store);
    this.#deps.onTurnEnd?.();
  }

  #reportPayment(e: unknown, opts?: IChatOptions): void {
    if (isPaymentRequired(e))
      (opts ?? this.#participants.options()).onPaymentRequiredError(e.outstandingClaims ?? []);
  }

  #clearTurn(turn: Turn): void {
    if (this.#turn === turn) this.#turn = undefined;
  }

  /**
   * Aborts the answer in flight: asks the oracle first (`POST /messages/abort`), lets the stream deliver its
   * `done {status: 'aborted', partialText}`, then stops reading. Lands in `ready`, keeping the partial answer.
   * The server's side of this handshake is server/oracle/runs/abort-handshake.ts.
   */
  async abortStream(): Promise<void> {
    const turn = this.#turn;
    const transport = this.#transport;
    if (!turn || !transport) return;
    turn.userAborted = true;
    try {
      await transport.abort();
    } catch {
      // The local stop below still happens.
    }
    await Promise.race([turn.done, sleep(1500)]);
    turn.abort.abort();
    this.#clearTurn(turn);
    if (this.store.getMeta().status !== 'ready') turn.landAborted(this.store);
  }
}
