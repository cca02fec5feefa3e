import {
  ActionCallEvent,
  BrowserToolCallEvent,
  RenderComponentEvent,
  ToolCallEvent,
  type AnyEvent,
} from '../../../contracts/events.js';
import type { SendMessageBody } from '../../../contracts/oracle.js';
import type { ActionRegistry } from '../context/action-registry.js';
import type { ReauthorizationReason } from '../auth/token-cache.js';
import type { OracleHttp } from '../http/oracle-http.js';
import { isAbortError, isPaymentRequired } from '../http/oracle-request-error.js';
import { loadJsonSchemaConverter } from '../tools/json-schema.js';
import type { CallOutcome } from '../tools/run-call.js';
import type { BrowserTool, IChatOptions, IMessage } from '../types.js';
import { sleep } from '../util/backoff.js';
import { BrowserCalls } from './browser-calls.js';
import { ChatStore, INITIAL_RUN } from './chat-store.js';
import { ChatTransport, RunDisconnectedError } from './chat-transport.js';
import { fromDto } from './content.js';
import { applyPart, newTurnState, reduceEvent, settlePart, type TurnState } from './event-reducer.js';
import { fetchNewestPage, fetchOlderPage } from './history.js';
import type { StreamEvent } from './sse.js';
import { SocketChannel, type SocketAuth } from './socket-channel.js';

/** Where the controller talks to, once the oracle's config has resolved. */
export interface ChatEndpoints {
  http: OracleHttp;
  wsUrl: string | undefined;
}

/** A message's extra fields (beyond the spec's `sendMessage(message)`, as reference SDK 1.4.0). */
export type SendExtras = Pick<SendMessageBody, 'metadata' | 'attachments'>;

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

/** One turn being read: its reducer state, and how it may stop. */
interface Turn {
  state: TurnState;
  /** The optimistic user message of this turn (until history has the stored one). */
  humanId: string | undefined;
  abort: AbortController;
  /** The user aborted: no re-join, status lands in `ready`. */
  userAborted: boolean;
  /** The hook unmounted, a newer turn started, or `detachStream`: stop quietly. */
  detached: boolean;
  done: Promise<void>;
  markDone: () => void;
}

const toError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** What `onReauthorize` is told when a refused handshake asks for a new delegation. */
const reauthorizationReason = (code: string | undefined): ReauthorizationReason =>
  code === 'delegation_missing' || code === 'delegation_expired' || code === 'auth_expired'
    ? code
    : 'expired';

const randomId = (): string =>
  typeof globalThis.crypto?.randomUUID === 'function'
    ? globalThis.crypto.randomUUID()
    : `local-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/** What `useChat` needs when no option getter has joined yet. */
const NO_OPTIONS: IChatOptions = { oracleDid: '', sessionId: '', onPaymentRequiredError: () => undefined };

/**
 * The chat of one session, outside React, shared by every `useChat` of the session: the flow between the
 * {@link ChatStore} (what React reads), the {@link ChatTransport} (SSE and re-join), the pure
 * {@link reduceEvent}, history paging, the socket and {@link BrowserCalls}.
 */
export class ChatController {
  readonly store: ChatStore;
  readonly #participants: (() => IChatOptions)[] = [];
  #endpoints: ChatEndpoints | undefined;
  #transport: ChatTransport | undefined;
  #retained = 0;
  #epoch = 0;
  #turn: Turn | undefined;
  #socket: SocketChannel | undefined;
  #prevCursor: string | null = null;
  #historyLoaded = false;
  readonly #calls: BrowserCalls;

  constructor(private readonly deps: ChatControllerDeps) {
    this.store = new ChatStore('batched');
    this.#calls = new BrowserCalls({
      sessionId: deps.sessionId,
      tools: () => this.#browserTools(),
      actions: deps.actions,
      emit: (name, payload) => this.#socket?.emit(name, payload),
    });
  }

  get sessionId(): string {
    return this.deps.sessionId;
  }

  /** A hook's latest options join the chat (its browser tools run, its callbacks are called). */
  join(options: () => IChatOptions): () => void {
    this.#participants.push(options);
    this.store.mode = this.#options().streamingMode ?? 'batched';
    return () => {
      const i = this.#participants.indexOf(options);
      if (i !== -1) this.#participants.splice(i, 1);
    };
  }

  #options(): IChatOptions {
    return this.#participants[0]?.() ?? NO_OPTIONS;
  }

  /** The browser tools of every hook of the session (the first hook's win a name). */
  #browserTools(): Record<string, BrowserTool> {
    const tools: Record<string, BrowserTool> = {};
    for (const get of [...this.#participants].reverse()) Object.assign(tools, get().browserTools);
    return tools;
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
    if (endpoints.wsUrl) this.#openSocket(endpoints);
  }

  #setEndpoints(endpoints: ChatEndpoints): void {
    this.#endpoints = endpoints;
    this.#transport = new ChatTransport(endpoints.http, this.sessionId, () => this.#options().rejoin ?? {});
  }

  /** Stops local work (streams, socket, timers); the server's run goes on and can be picked up again. */
  #detach(): void {
    this.#epoch++;
    if (this.#turn) {
      this.#turn.detached = true;
      this.#turn.abort.abort();
      this.#turn = undefined;
    }
    this.#socket?.close();
    this.#socket = undefined;
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
    const endpoints = await this.deps.resolve();
    if (!this.#endpoints) this.#setEndpoints(endpoints);
    return this.#endpoints ?? endpoints;
  }

  // --- history ---

  /**
   * Loads the newest page of history; falls back to the whole legacy history. The pages loaded before it with
   * `loadOlderMessages` are kept when the newest page still joins them (its first message is one of theirs),
   * and with them the cursor to load older ones still; else the thread is the newest page.
   */
  async refetchMessages(epoch = this.#epoch): Promise<IMessage[]> {
    const http = this.#endpoints?.http;
    if (!http) return this.store.getMessages();
    const first = !this.#historyLoaded;
    if (first) this.store.setMeta({ isLoading: true });
    try {
      const page = await fetchNewestPage(http, this.sessionId, this.#pageSize());
      if (epoch !== this.#epoch) return this.store.getMessages();
      const loaded = page.messages.map(fromDto);
      const ids = new Set(loaded.map((m) => m.id));
      // Older pages this thread holds, before the newest page's first message.
      const current = this.store.getMessages();
      const joinsAt = loaded[0] === undefined ? -1 : current.findIndex((m) => m.id === loaded[0]?.id);
      const older = joinsAt > 0 ? current.slice(0, joinsAt).filter((m) => !ids.has(m.id)) : [];
      if (older.length === 0) this.#prevCursor = page.prevCursor;
      // Keep the turn in flight (its optimistic user message and the answer) when history does not hold it
      // yet; everything else comes from history, so a refetch never duplicates a message. The oracle stores
      // the question under an id of its own as the turn starts (and the answer at its end): history that ends
      // with a question of the optimistic one's text holds it already.
      const turn = this.#turn;
      const optimistic = turn?.humanId === undefined ? undefined : this.store.find(turn.humanId);
      const newest = loaded.at(-1);
      const stored =
        optimistic !== undefined && newest?.type === 'human' && newest.content === optimistic.content;
      const live = this.store
        .getMessages()
        .filter(
          (m) =>
            !ids.has(m.id) &&
            turn !== undefined &&
            ((m.id === turn.humanId && !stored) || m.id === turn.state.requestId),
        );
      this.store.replaceAll([...older, ...loaded, ...live]);
      this.#historyLoaded = true;
      const recovered = this.store.getMeta().status === 'error' && !turn ? { status: 'ready' as const } : {};
      this.store.setMeta({
        isLoading: false,
        error: undefined,
        ...(older.length === 0 ? { hasOlderMessages: page.hasOlder } : {}),
        ...recovered,
      });
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
    if (!http || !this.#prevCursor) return;
    try {
      const page = await fetchOlderPage(http, this.sessionId, this.#prevCursor, this.#pageSize());
      this.#prevCursor = page.prevCursor;
      this.store.prepend(page.messages.map(fromDto));
      this.store.setMeta({ hasOlderMessages: page.hasOlder });
      this.store.flush();
    } catch (e) {
      this.store.setMeta({ error: toError(e) });
    }
  }

  #pageSize(): number {
    return this.#options().historyPageSize ?? 20;
  }

  // --- runs ---

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
    const turn = this.#newTurn(newTurnState({ runId: run.runId, requestId: run.requestId }));
    // Rebuild the answer from the run's first event: whatever history held of it is replaced.
    this.store.upsert(run.requestId, (old) => ({
      ...(old ?? {}),
      id: run.requestId,
      type: 'ai',
      content: '',
    }));
    this.store.setRun({ ...INITIAL_RUN, runId: run.runId, requestId: run.requestId });
    this.store.setMeta({ status: 'streaming', sendMessageError: undefined });
    await this.#read(turn, transport, undefined);
  }

  /** Stops reading the answer here; the run goes on at the oracle (pick it up again with `resumeRun`). */
  detachStream(): void {
    const turn = this.#turn;
    if (!turn) return;
    turn.detached = true;
    turn.abort.abort();
    turn.markDone();
    this.#clearTurn(turn);
    this.store.setRun({ reconnecting: false });
    this.store.setMeta({ status: 'ready' });
  }

  // --- sending ---

  /** Sends a user message and streams the answer. `options` are the sending hook's (its callbacks). */
  async sendMessage(text: string, extras: SendExtras = {}, options?: IChatOptions): Promise<void> {
    const opts = options ?? this.#options();
    if (this.sessionId === '') {
      this.store.setMeta({
        status: 'error',
        sendMessageError: new Error(
          'No session yet: create one with useOracleSessions().createSession() and pass its sessionId to useChat',
        ),
      });
      return;
    }
    if (this.#turn) {
      // The server ends the previous stream when a new message arrives; stop reading it quietly.
      this.#turn.detached = true;
      this.#turn.abort.abort();
    }
    const turn = this.#newTurn(newTurnState());
    this.store.mode = opts.streamingMode ?? 'batched';
    this.store.throttleMs = opts.streamingThrottleMs;
    const humanId = `local:${randomId()}`;
    turn.humanId = humanId;
    this.store.upsert(humanId, () => ({
      id: humanId,
      type: 'human',
      content: text,
      createdAt: new Date().toISOString(),
    }));
    this.store.setRun(INITIAL_RUN);
    this.store.setMeta({ status: 'submitted', sendMessageError: undefined });

    const body: SendMessageBody = { message: text, stream: true, ...extras };
    if (opts.model) body.model = opts.model;
    try {
      body.timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch {
      // no Intl time zone: leave it out
    }
    try {
      await this.#ready();
      const transport = this.#transport;
      if (!transport) throw new Error('The chat was closed');
      Object.assign(body, await this.#advertised());
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

  /** Tools and actions advertised with a message, their zod schemas as JSON schema. */
  async #advertised(): Promise<Pick<SendMessageBody, 'tools' | 'agActions'>> {
    const browserTools = Object.values(this.#browserTools());
    const actions = this.deps.actions.list();
    if (browserTools.length === 0 && actions.length === 0) return {};
    const toJsonSchema = await loadJsonSchemaConverter();
    const tools = browserTools.map((t) => ({
      name: t.toolName,
      description: t.description,
      schema: toJsonSchema(t.schema),
    }));
    const agActions = actions.map((a) => ({
      name: a.name,
      description: a.description,
      schema: toJsonSchema(a.parameters),
      hasRender: a.hasRender,
    }));
    return {
      ...(tools.length > 0 ? { tools } : {}),
      ...(agActions.length > 0 ? { agActions } : {}),
    };
  }

  #newTurn(state: TurnState): Turn {
    let markDone!: () => void;
    const done = new Promise<void>((r) => (markDone = r));
    const turn: Turn = {
      state,
      humanId: undefined,
      abort: new AbortController(),
      userAborted: false,
      detached: false,
      done,
      markDone,
    };
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
      if (e instanceof RunDisconnectedError) this.#endDisconnected(turn, e);
      else this.#failTurn(turn, e, opts);
    }
  }

  /** Applies one event through the reducer and writes the message it gives into the store. */
  #apply(turn: Turn, ev: StreamEvent): void {
    const before = turn.state;
    const id = before.requestId ?? (ev.event.eventName === 'run' ? ev.event.payload.requestId : undefined);
    const r = reduceEvent(before, id ? this.store.find(id) : undefined, ev);
    const applied = ev.id === undefined || ev.id > before.lastEventId;
    turn.state = r.turn;
    const message = r.message;
    if (message) this.store.upsert(message.id, () => message);
    if (r.turn.resumed !== before.resumed || r.turn.runId !== before.runId)
      this.store.setRun({
        runId: r.turn.runId ?? null,
        requestId: r.turn.requestId ?? null,
        resumed: r.turn.resumed,
      });
    if (r.urgent) this.store.flush();
    const { event } = ev;
    if (applied && event.eventName === 'tool_call' && event.payload.status === 'done')
      this.deps.onToolCallDone?.(event.payload.toolName);
  }

  #endDisconnected(turn: Turn, e: Error): void {
    turn.markDone();
    if (turn.detached || turn.userAborted) return;
    this.#clearTurn(turn);
    this.store.setRun({ reconnecting: false, ended: 'disconnected' });
    this.store.setMeta({ status: 'error', sendMessageError: e });
  }

  #failTurn(turn: Turn, e: unknown, opts?: IChatOptions): void {
    turn.markDone();
    if (turn.detached) return;
    this.#clearTurn(turn);
    if (turn.userAborted || isAbortError(e)) {
      this.store.setMeta({ status: 'ready' });
      return;
    }
    this.#reportPayment(e, opts);
    this.store.setRun({ reconnecting: false });
    this.store.setMeta({ status: 'error', sendMessageError: toError(e) });
  }

  #finish(turn: Turn): void {
    turn.markDone();
    this.#clearTurn(turn);
    const ended = turn.state.ended ?? 'finished';
    this.store.setRun({ reconnecting: false, ended });
    if (ended === 'failed') {
      this.store.setMeta({
        status: 'error',
        sendMessageError: new Error(turn.state.errorText ?? 'The turn failed'),
      });
    } else {
      this.store.setMeta({ status: 'ready' });
    }
    this.deps.onTurnEnd?.();
  }

  #reportPayment(e: unknown, opts?: IChatOptions): void {
    if (isPaymentRequired(e)) (opts ?? this.#options()).onPaymentRequiredError(e.outstandingClaims ?? []);
  }

  #clearTurn(turn: Turn): void {
    if (this.#turn === turn) this.#turn = undefined;
  }

  // --- abort ---

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
    if (this.store.getMeta().status !== 'ready') {
      const id = turn.state.requestId;
      if (id) this.#edit(id, (m) => ({ ...m, isComplete: true, runStatus: 'aborted' }));
      this.store.setRun({ reconnecting: false, ended: 'aborted' });
      this.store.setMeta({ status: 'ready' });
    }
  }

  #edit(id: string, edit: (m: IMessage) => IMessage): void {
    this.store.upsert(id, (old) => edit(old ?? { id, type: 'ai', content: '' }));
  }

  // --- socket, browser tools and actions ---

  #openSocket(endpoints: ChatEndpoints): void {
    const { http, wsUrl } = endpoints;
    if (!wsUrl) return;
    const socket = new SocketChannel({
      wsUrl,
      sessionId: this.sessionId,
      userDid: this.deps.userDid,
      retryBaseMs: this.deps.socketRetryBaseMs,
      auth: async (refresh, code): Promise<SocketAuth> => {
        // Only what the server's refusal asked for is minted again (socket-channel.ts); a decline fails the
        // handshake, and the channel reports it.
        if (refresh === 'delegation') await http.renewDelegation(undefined, reauthorizationReason(code));
        if (refresh === 'invocation') await http.renewInvocation();
        const headers = await http.authHeaders();
        const auth: SocketAuth = { ucanDelegation: headers['x-ucan-delegation'] ?? '' };
        const bearer = headers['authorization'];
        if (bearer) auth.invocation = bearer.replace(/^Bearer /, '');
        return auth;
      },
      onEvent: (name, payload) => this.#onSocketEvent(name, payload),
      onConnectedChange: (connected) => this.store.setMeta({ isRealTimeConnected: connected }),
      onRefused: (error) => this.store.setMeta({ error, isRealTimeConnected: false }),
    });
    this.#socket = socket;
    socket.connect();
  }

  #onSocketEvent(name: string, payload: unknown): void {
    switch (name) {
      case 'browser_tool_call': {
        const p = BrowserToolCallEvent.safeParse(payload);
        if (p.success && p.data.sessionId === this.sessionId && !this.#calls.has(p.data.toolCallId)) {
          this.#showSocketPart({ eventName: 'browser_tool_call', payload: p.data });
          void this.#calls.runBrowserTool(p.data).then((o) => this.#settle(p.data.toolCallId, o));
        }
        return;
      }
      case 'action_call': {
        const p = ActionCallEvent.safeParse(payload);
        if (
          p.success &&
          p.data.sessionId === this.sessionId &&
          p.data.status === 'isRunning' &&
          !this.#calls.has(p.data.toolCallId)
        ) {
          this.#showSocketPart({ eventName: 'action_call', payload: p.data });
          void this.#calls.runAction(p.data).then((o) => this.#settle(p.data.toolCallId, o, o?.args));
        }
        return;
      }
      case 'tool_call': {
        const p = ToolCallEvent.safeParse(payload);
        if (p.success && p.data.sessionId === this.sessionId)
          this.#showSocketPart({ eventName: 'tool_call', payload: p.data });
        return;
      }
      case 'render_component': {
        const p = RenderComponentEvent.safeParse(payload);
        if (p.success && p.data.sessionId === this.sessionId)
          this.#showSocketPart({ eventName: 'render_component', payload: p.data });
        return;
      }
      default:
        return;
    }
  }

  /** The message a socket event belongs to: its request's, else the turn's (when it is on screen). */
  #socketTarget(event: AnyEvent): string | undefined {
    const requestId = 'requestId' in event.payload ? event.payload.requestId : undefined;
    const target = requestId && this.store.find(requestId) ? requestId : this.#turn?.state.requestId;
    return target && this.store.find(target) ? target : undefined;
  }

  /** Socket events show in the message of their turn when it is on screen (the stream shows them too). */
  #showSocketPart(event: AnyEvent): void {
    const target = this.#socketTarget(event);
    if (!target) return;
    this.#edit(target, (m) => applyPart(m, event));
    this.store.flush();
  }

  /** Marks a browser-tool or action part done (or failed) with its result, in whichever message holds it. */
  #settle(id: string, outcome: CallOutcome | undefined, args?: Record<string, unknown>): void {
    if (!outcome) return;
    for (const m of this.store.current()) {
      const next = settlePart(m, id, outcome, args);
      if (next !== m) {
        this.store.upsert(m.id, () => next);
        this.store.flush();
        return;
      }
    }
  }
}
