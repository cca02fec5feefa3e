import {
  ActionCallEvent,
  BrowserToolCallEvent,
  RenderComponentEvent,
  ToolCallEvent,
  type AnyEvent,
  type DoneEvent,
} from '../../../contracts/events.js';
import {
  oracleContract,
  type MessageDto,
  type RunInfo,
  type SendMessageBody,
} from '../../../contracts/oracle.js';
import type { ActionRegistry } from '../context/action-registry.js';
import type { OracleHttp } from '../http/oracle-http.js';
import { isPaymentRequired, OracleRequestError } from '../http/oracle-request-error.js';
import type { IChatOptions, IComponentMetadata, IMessage } from '../types.js';
import { loadJsonSchemaConverter } from '../tools/json-schema.js';
import { runCall } from '../tools/run-call.js';
import { ChatStore, INITIAL_RUN } from './chat-store.js';
import { appendText, fromDto, hasPart, replaceText, textOf, upsertPart } from './content.js';
import { readEventStream, type StreamEvent } from './sse.js';
import { SocketChannel, type SocketAuth } from './socket-channel.js';

/** Where the controller talks to, once the oracle's config has resolved. */
export interface ChatEndpoints {
  http: OracleHttp;
  wsUrl: string | undefined;
}

export interface ChatControllerDeps {
  sessionId: string;
  userDid: string;
  actions: ActionRegistry;
  /** The latest options of the hook (callbacks are read at call time, never stale). */
  options: () => IChatOptions;
  /** Called after a turn ends (the sessions list may have a new title or order). */
  onTurnEnd?: () => void;
  /** Re-join backoff, ms: attempt n waits `base · 2^n` (capped), jittered. */
  rejoinBaseMs?: number;
  /** How many re-join attempts before the run counts as disconnected. */
  rejoinAttempts?: number;
  socketRetryBaseMs?: number;
}

/** One turn being streamed: its run, the last event id seen, and how it may stop. */
interface Turn {
  /** The optimistic user message of this turn (until history has the stored one). */
  humanId: string | undefined;
  requestId: string | undefined;
  runId: string | undefined;
  lastEventId: number;
  abort: AbortController;
  /** The user aborted: no re-join, status lands in `ready`. */
  userAborted: boolean;
  /** The hook unmounted or a newer turn started: stop quietly. */
  detached: boolean;
  errorText: string | undefined;
  done: Promise<void>;
  markDone: () => void;
}

const IN_FLIGHT = new Set<RunInfo['status']>(['queued', 'running', 'recovering']);

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

const isAbort = (e: unknown): boolean =>
  (e instanceof Error || (typeof e === 'object' && e !== null)) &&
  (e as { name?: string }).name === 'AbortError';

const toError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

const randomId = (): string =>
  typeof globalThis.crypto?.randomUUID === 'function'
    ? globalThis.crypto.randomUUID()
    : `local-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/**
 * The chat of one session, outside React: history, sending and streaming, re-joining dropped runs, the
 * socket channel, and browser tools and actions. `useChat` creates one per session and reads its
 * {@link ChatStore}.
 */
export class ChatController {
  readonly store: ChatStore;
  #endpoints: ChatEndpoints | undefined;
  #epoch = 0;
  #turn: Turn | undefined;
  #socket: SocketChannel | undefined;
  #prevCursor: string | null = null;
  /** Tool calls already executed (by toolCallId): a replayed or repeated event never runs a tool twice. */
  readonly #executed = new Set<string>();
  /** Which message holds a part, by part id. */
  readonly #partOwner = new Map<string, string>();
  #historyLoaded = false;

  constructor(private readonly deps: ChatControllerDeps) {
    this.store = new ChatStore(deps.options().streamingMode ?? 'batched');
  }

  get sessionId(): string {
    return this.deps.sessionId;
  }

  /** Starts talking to the oracle: loads history, picks up a run in flight, opens the socket. */
  attach(endpoints: ChatEndpoints): () => void {
    const epoch = ++this.#epoch;
    this.#endpoints = endpoints;
    void this.#start(epoch);
    if (endpoints.wsUrl) this.#openSocket(endpoints);
    return () => this.detach(epoch);
  }

  /** Stops local work (streams, socket, timers); the server's run goes on and can be picked up again. */
  detach(epoch = this.#epoch): void {
    if (epoch !== this.#epoch) return;
    this.#epoch++;
    if (this.#turn) {
      this.#turn.detached = true;
      this.#turn.abort.abort();
      // A later attach picks the run up again from the server (GET /sessions/:id/run).
      this.#turn = undefined;
    }
    this.#socket?.close();
    this.#socket = undefined;
    this.store.setMeta({ isRealTimeConnected: false });
    this.store.dispose();
  }

  async #start(epoch: number): Promise<void> {
    await this.refetchMessages(epoch);
    if (epoch !== this.#epoch) return;
    await this.#pickUpRun(epoch);
  }

  // --- history ---

  /** Loads the newest page of history (replacing the thread); falls back to the whole legacy history. */
  async refetchMessages(epoch = this.#epoch): Promise<IMessage[]> {
    const http = this.#endpoints?.http;
    if (!http) return this.store.getMessages();
    const first = !this.#historyLoaded;
    if (first) this.store.setMeta({ isLoading: true });
    try {
      const { messages, prevCursor, hasOlder } = await this.#fetchHistory(http);
      if (epoch !== this.#epoch) return this.store.getMessages();
      this.#prevCursor = prevCursor;
      const loaded = messages.map(fromDto);
      const ids = new Set(loaded.map((m) => m.id));
      // Keep the turn in flight (its optimistic user message and the answer) when history does not hold it
      // yet; everything else comes from history, so a refetch never duplicates a message.
      const turn = this.#turn;
      const live = this.store
        .getMessages()
        .filter(
          (m) => !ids.has(m.id) && turn !== undefined && (m.id === turn.humanId || m.id === turn.requestId),
        );
      this.store.replaceAll([...loaded, ...live]);
      this.#historyLoaded = true;
      const recovered = this.store.getMeta().status === 'error' && !turn ? { status: 'ready' as const } : {};
      this.store.setMeta({ isLoading: false, error: undefined, hasOlderMessages: hasOlder, ...recovered });
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
      const page = await http.call(oracleContract.transcript, {
        params: { sessionId: this.sessionId },
        query: { limit: this.#pageSize(), before: this.#prevCursor },
      });
      this.#prevCursor = page.prevCursor;
      this.store.prepend(page.messages.map(fromDto));
      this.store.setMeta({ hasOlderMessages: page.hasOlder });
      this.store.flush();
    } catch (e) {
      this.store.setMeta({ error: toError(e) });
    }
  }

  #pageSize(): number {
    return this.deps.options().historyPageSize ?? 20;
  }

  async #fetchHistory(
    http: OracleHttp,
  ): Promise<{ messages: MessageDto[]; prevCursor: string | null; hasOlder: boolean }> {
    const params = { sessionId: this.sessionId };
    try {
      return await http.call(oracleContract.transcript, { params, query: { limit: this.#pageSize() } });
    } catch (e) {
      // Older services have only the whole history (reference SDK 1.4.0 falls back the same way).
      const routeMissing =
        e instanceof OracleRequestError &&
        (e.status === 405 || (e.status === 404 && e.code !== 'session_not_found'));
      if (!routeMissing) throw e;
      const all = await http.call(oracleContract.history, { params });
      return { messages: all.messages, prevCursor: null, hasOlder: false };
    }
  }

  async #pickUpRun(epoch: number): Promise<void> {
    const http = this.#endpoints?.http;
    if (!http || this.#turn) return;
    let run: RunInfo;
    try {
      ({ run } = await http.call(oracleContract.currentRun, { params: { sessionId: this.sessionId } }));
    } catch {
      return; // 404: no run; anything else: nothing to pick up
    }
    if (epoch !== this.#epoch || this.#turn || !IN_FLIGHT.has(run.status)) return;
    const turn = this.#newTurn();
    turn.runId = run.runId;
    turn.requestId = run.requestId;
    // Rebuild the answer from the run's first event: whatever history held of it is replaced.
    this.store.upsert(run.requestId, (old) => ({
      ...(old ?? {}),
      id: run.requestId,
      type: 'ai',
      content: '',
    }));
    this.#partOwnerReset(run.requestId);
    this.store.setRun({ ...INITIAL_RUN, runId: run.runId, requestId: run.requestId });
    this.store.setMeta({ status: 'streaming', sendMessageError: undefined });
    await this.#rejoin(turn);
  }

  #partOwnerReset(messageId: string): void {
    for (const [part, owner] of this.#partOwner) if (owner === messageId) this.#partOwner.delete(part);
  }

  // --- sending ---

  /** Sends a user message and streams the answer. */
  async sendMessage(text: string): Promise<void> {
    const http = this.#endpoints?.http;
    if (!http) {
      this.store.setMeta({
        status: 'error',
        sendMessageError: new Error('The oracle config is not ready yet'),
      });
      return;
    }
    if (this.#turn) {
      // The server ends the previous stream when a new message arrives; stop reading it quietly.
      this.#turn.detached = true;
      this.#turn.abort.abort();
    }
    const turn = this.#newTurn();
    const opts = this.deps.options();
    this.store.mode = opts.streamingMode ?? 'batched';
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

    const body: SendMessageBody = { message: text, stream: true };
    if (opts.model) body.model = opts.model;
    try {
      body.timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch {
      // no Intl time zone: leave it out
    }

    try {
      Object.assign(body, await this.#advertised());
      const res = await http.open(oracleContract.send, {
        params: { sessionId: this.sessionId },
        body,
        signal: turn.abort.signal,
        headers: { accept: 'text/event-stream' },
      });
      const requestId = res.headers.get('x-request-id');
      if (!requestId) throw new Error('Did not receive a request ID');
      turn.requestId = requestId;
      turn.runId = res.headers.get('x-run-id') ?? undefined;
      this.store.upsert(requestId, () => ({ id: requestId, type: 'ai', content: '' }));
      this.store.setRun({ runId: turn.runId ?? null, requestId });
      this.store.setMeta({ status: 'streaming' });
      if (!res.body) throw new Error('The oracle answered without a stream');
      const finished = await this.#consume(turn, res.body);
      if (!finished) await this.#rejoin(turn);
    } catch (e) {
      this.#failTurn(turn, e);
    }
  }

  /** Tools and actions advertised with a message, their zod schemas as JSON schema. */
  async #advertised(): Promise<Pick<SendMessageBody, 'tools' | 'agActions'>> {
    const browserTools = Object.values(this.deps.options().browserTools ?? {});
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

  #newTurn(): Turn {
    let markDone!: () => void;
    const done = new Promise<void>((r) => (markDone = r));
    const turn: Turn = {
      humanId: undefined,
      requestId: undefined,
      runId: undefined,
      lastEventId: 0,
      abort: new AbortController(),
      userAborted: false,
      detached: false,
      errorText: undefined,
      done,
      markDone,
    };
    this.#turn = turn;
    return turn;
  }

  /** Reads a stream to its end; true when the turn finished (`done` read), false when the stream dropped. */
  async #consume(turn: Turn, body: ReadableStream<Uint8Array>): Promise<boolean> {
    try {
      for await (const batch of readEventStream(body)) {
        if (turn.detached) return true;
        let finished = false;
        for (const ev of batch) {
          if (this.#apply(turn, ev)) {
            finished = true;
            break;
          }
        }
        this.store.commit();
        if (finished) return true;
      }
    } catch {
      // A read that fails is a dropped stream: the caller re-joins the run (unless it was stopped on purpose).
    }
    return turn.detached || turn.userAborted;
  }

  /** Re-joins a dropped run after its last event, with backoff; ends `disconnected` when it cannot. */
  async #rejoin(turn: Turn): Promise<void> {
    const http = this.#endpoints?.http;
    if (!http || !turn.runId) {
      this.#endDisconnected(turn);
      return;
    }
    const attempts = this.deps.rejoinAttempts ?? 5;
    const base = this.deps.rejoinBaseMs ?? 250;
    let failures = 0;
    while (!turn.detached && !turn.userAborted) {
      if (failures >= attempts) {
        this.#endDisconnected(turn);
        return;
      }
      this.store.setRun({ reconnecting: true });
      if (failures > 0) {
        await sleep(
          Math.min(8000, base * 2 ** (failures - 1)) * (0.8 + Math.random() * 0.4),
          turn.abort.signal,
        );
      }
      if (turn.detached || turn.userAborted) return;
      const before = turn.lastEventId;
      try {
        const res = await http.open(oracleContract.rejoinRun, {
          params: { runId: turn.runId },
          query: { after: turn.lastEventId },
          headers: { accept: 'text/event-stream' },
          signal: turn.abort.signal,
        });
        this.store.setRun({ reconnecting: false });
        if (!res.body) throw new Error('The oracle answered without a stream');
        if (await this.#consume(turn, res.body)) return;
        failures = turn.lastEventId > before ? 0 : failures + 1;
      } catch (e) {
        if (turn.detached || turn.userAborted) return;
        if (e instanceof OracleRequestError && e.status === 404) {
          this.#endDisconnected(turn);
          return;
        }
        failures++;
      }
    }
  }

  #endDisconnected(turn: Turn): void {
    if (turn.detached || turn.userAborted) return;
    this.store.setRun({ reconnecting: false, ended: 'disconnected' });
    this.store.setMeta({
      status: 'error',
      sendMessageError: new Error('The answer stream was lost and could not be re-joined'),
    });
    turn.markDone();
    this.#clearTurn(turn);
  }

  #failTurn(turn: Turn, e: unknown): void {
    turn.markDone();
    if (turn.detached) return;
    this.#clearTurn(turn);
    if (turn.userAborted || isAbort(e)) {
      this.store.setMeta({ status: 'ready' });
      return;
    }
    this.#reportPayment(e);
    this.store.setRun({ reconnecting: false });
    this.store.setMeta({ status: 'error', sendMessageError: toError(e) });
  }

  #reportPayment(e: unknown): void {
    if (isPaymentRequired(e)) this.deps.options().onPaymentRequiredError(e.outstandingClaims ?? []);
  }

  #clearTurn(turn: Turn): void {
    if (this.#turn === turn) this.#turn = undefined;
  }

  /** Applies one stream event; true when it was `done`. Replayed events (id ≤ last seen) are skipped. */
  #apply(turn: Turn, { id, event }: StreamEvent): boolean {
    if (id !== undefined) {
      if (id <= turn.lastEventId) return false;
      turn.lastEventId = id;
    }
    const messageId = turn.requestId;
    switch (event.eventName) {
      case 'run': {
        const p = event.payload;
        turn.runId = p.runId;
        if (!turn.requestId) turn.requestId = p.requestId;
        const mid = turn.requestId;
        if (p.resumed) {
          this.store.upsert(mid, (old) => {
            const content = old?.content ?? '';
            return {
              ...(old ?? { id: mid, type: 'ai' }),
              content: replaceText(content, textOf(content).slice(0, p.partialLength ?? 0)),
            };
          });
        }
        this.store.setRun({ runId: p.runId, requestId: mid, resumed: p.resumed === true });
        return false;
      }
      case 'message':
        if (messageId)
          this.#editAi(messageId, (m) => ({ ...m, content: appendText(m.content, event.payload.content) }));
        return false;
      case 'reasoning':
        if (messageId)
          this.#editAi(messageId, (m) => ({
            ...m,
            reasoning: (m.reasoning ?? '') + event.payload.reasoning,
            isReasoning: !event.payload.isComplete,
          }));
        return false;
      case 'tool_call':
      case 'action_call':
      case 'render_component':
      case 'browser_tool_call':
        if (messageId) this.#showPart(messageId, event);
        // Tools, actions and components show at once, not at the next frame.
        this.store.flush();
        return false;
      case 'error':
        turn.errorText = event.payload.error;
        return false;
      case 'done':
        this.#finish(turn, event.payload);
        return true;
      case 'connected':
        return false;
    }
  }

  #editAi(id: string, edit: (m: IMessage) => IMessage): void {
    this.store.upsert(id, (old) => edit(old ?? { id, type: 'ai', content: '' }));
  }

  /** Shows a tool, action, component or browser-tool event as a part of its message (upsert by id). */
  #showPart(messageId: string, event: AnyEvent): void {
    const part = partOf(event);
    if (!part) return;
    const owner = this.#partOwner.get(part.props.id) ?? messageId;
    this.#partOwner.set(part.props.id, owner);
    this.#editAi(owner, (m) => ({
      ...m,
      content: upsertPart(m.content, part.props.id, (old) => mergePart(old, part)),
    }));
  }

  #finish(turn: Turn, done: DoneEvent): void {
    const mid = turn.requestId;
    if (mid) {
      this.#editAi(mid, (m) => {
        const next: IMessage = { ...m, isComplete: true, isReasoning: false };
        if (done.status !== 'finished') {
          next.runStatus = done.status;
          if (done.partialText !== undefined) next.content = replaceText(m.content, done.partialText);
        }
        return next;
      });
    }
    turn.markDone();
    this.#clearTurn(turn);
    this.store.setRun({ reconnecting: false, ended: done.status });
    if (done.status === 'failed') {
      this.store.setMeta({
        status: 'error',
        sendMessageError: new Error(turn.errorText ?? 'The turn failed'),
      });
    } else {
      this.store.setMeta({ status: 'ready' });
    }
    this.deps.onTurnEnd?.();
  }

  // --- abort ---

  /**
   * Aborts the answer in flight: asks the oracle first (`POST /messages/abort`), lets the stream deliver its
   * `done {status: 'aborted', partialText}`, then stops reading. Lands in `ready`, keeping the partial answer.
   */
  async abortStream(): Promise<void> {
    const turn = this.#turn;
    const http = this.#endpoints?.http;
    if (!turn || !http) return;
    turn.userAborted = true;
    try {
      await http.call(oracleContract.abort, { body: { sessionId: this.sessionId } });
    } catch {
      // The local stop below still happens.
    }
    await Promise.race([turn.done, sleep(1500)]);
    turn.abort.abort();
    this.#clearTurn(turn);
    if (this.store.getMeta().status !== 'ready') {
      if (turn.requestId)
        this.#editAi(turn.requestId, (m) => ({ ...m, isComplete: true, runStatus: 'aborted' }));
      this.store.setRun({ reconnecting: false, ended: 'aborted' });
      this.store.setMeta({ status: 'ready' });
    }
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
      auth: async (refresh): Promise<SocketAuth> => {
        if (refresh) await http.renewDelegation().catch(() => undefined);
        const headers = await http.authHeaders();
        const auth: SocketAuth = { ucanDelegation: headers['x-ucan-delegation'] ?? '' };
        const bearer = headers['authorization'];
        if (bearer) auth.invocation = bearer.replace(/^Bearer /, '');
        return auth;
      },
      onEvent: (name, payload) => this.#onSocketEvent(name, payload),
      onConnectedChange: (connected) => this.store.setMeta({ isRealTimeConnected: connected }),
    });
    this.#socket = socket;
    socket.connect();
  }

  #onSocketEvent(name: string, payload: unknown): void {
    switch (name) {
      case 'browser_tool_call': {
        const p = BrowserToolCallEvent.safeParse(payload);
        if (p.success && p.data.sessionId === this.sessionId) void this.#runBrowserTool(p.data);
        return;
      }
      case 'action_call': {
        const p = ActionCallEvent.safeParse(payload);
        if (p.success && p.data.sessionId === this.sessionId && p.data.status === 'isRunning')
          void this.#runAction(p.data);
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

  /** Socket events show in the message of their turn when it is on screen (the stream shows them too). */
  #showSocketPart(event: AnyEvent): void {
    const requestId = 'requestId' in event.payload ? event.payload.requestId : undefined;
    const target = requestId && this.store.find(requestId) ? requestId : this.#turn?.requestId;
    if (!target || !this.store.find(target)) return;
    this.#showPart(target, event);
    this.store.flush();
  }

  async #runBrowserTool(call: BrowserToolCallEvent): Promise<void> {
    if (this.#executed.has(call.toolCallId)) return;
    this.#executed.add(call.toolCallId);
    this.#showSocketPart({ eventName: 'browser_tool_call', payload: call });
    const tools = this.deps.options().browserTools ?? {};
    const tool = tools[call.toolName] ?? Object.values(tools).find((t) => t.toolName === call.toolName);
    const outcome = await runCall(
      tool ? { schema: tool.schema, fn: tool.fn } : undefined,
      call.toolName,
      call.args,
      'browser tool',
    );
    this.#socket?.emit('tool_result', {
      toolCallId: call.toolCallId,
      result: outcome.result,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    });
    this.#settlePart(call.toolCallId, outcome);
  }

  async #runAction(call: ActionCallEvent): Promise<void> {
    if (this.#executed.has(call.toolCallId)) return;
    this.#executed.add(call.toolCallId);
    this.#showSocketPart({ eventName: 'action_call', payload: call });
    const action = this.deps.actions.get(call.toolName);
    const outcome = await runCall(
      action ? { schema: action.parameters, fn: action.handler } : undefined,
      call.toolName,
      call.args ?? {},
      'action',
    );
    this.#socket?.emit('action_call_result', {
      toolCallId: call.toolCallId,
      sessionId: this.sessionId,
      result: outcome.error !== undefined ? { success: false, error: outcome.error } : outcome.result,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    });
    this.#settlePart(call.toolCallId, outcome, outcome.args);
  }

  /** Marks a browser-tool or action part done (or failed) with its result. */
  #settlePart(
    id: string,
    outcome: { result: unknown; error?: string },
    args?: Record<string, unknown>,
  ): void {
    const owner = this.#partOwner.get(id);
    if (!owner || !this.store.find(owner)) return;
    this.#editAi(owner, (m) => {
      if (!hasPart(m.content, id)) return m;
      return {
        ...m,
        content: upsertPart(m.content, id, (old) => {
          const props = { ...(old?.props ?? { id, args: {} }) };
          if (args) props.args = args;
          if (outcome.error !== undefined) {
            props.status = 'error';
            props.error = outcome.error;
          } else {
            props.status = 'done';
            props.output = JSON.stringify(outcome.result ?? null);
          }
          return { name: old?.name ?? id, props };
        }),
      };
    });
    this.store.flush();
  }
}

/** The message part an event shows as, or nothing for events that are not parts. */
function partOf(event: AnyEvent): IComponentMetadata | undefined {
  switch (event.eventName) {
    case 'tool_call': {
      const p = event.payload;
      return {
        name: p.toolName,
        props: {
          id: p.toolCallId,
          toolName: p.toolName,
          args: p.args,
          status: p.status,
          kind: 'tool',
          isToolCall: true,
          requestId: p.requestId,
          sessionId: p.sessionId,
          ...(p.output !== undefined ? { output: p.output } : {}),
          ...(p.error !== undefined ? { error: p.error } : {}),
        },
      };
    }
    case 'action_call': {
      const p = event.payload;
      return {
        name: p.toolName,
        props: {
          id: p.toolCallId,
          toolName: p.toolName,
          args: p.args ?? {},
          status: p.status,
          kind: 'action',
          isAgAction: true,
          ...(p.output !== undefined ? { output: p.output } : {}),
          ...(p.error !== undefined ? { error: p.error } : {}),
        },
      };
    }
    case 'render_component': {
      const p = event.payload;
      return {
        name: p.componentName,
        props: { id: p.eventId, args: p.args, status: p.status ?? 'done', kind: 'component' },
      };
    }
    case 'browser_tool_call': {
      const p = event.payload;
      return {
        name: p.toolName,
        props: {
          id: p.toolCallId,
          toolName: p.toolName,
          args: p.args,
          status: 'isRunning',
          kind: 'browser_tool',
          isToolCall: true,
          requestId: p.requestId,
          sessionId: p.sessionId,
        },
      };
    }
    case 'run':
    case 'message':
    case 'reasoning':
    case 'error':
    case 'done':
    case 'connected':
      return undefined;
  }
}

/**
 * Merges a new view of a part into the old one: a settled part never goes back to running (a late or
 * replayed start event), and args/output already known are kept when the new event leaves them out.
 */
function mergePart(old: IComponentMetadata | undefined, next: IComponentMetadata): IComponentMetadata {
  if (!old) return next;
  const settled = old.props.status === 'done' || old.props.status === 'error';
  const props = { ...old.props, ...next.props };
  // The service reports a browser tool's progress with tool_call events too: it stays a browser tool.
  if (old.props.kind === 'browser_tool' && next.props.kind === 'tool') props.kind = 'browser_tool';
  if (Object.keys(next.props.args).length === 0) props.args = old.props.args;
  if (settled && next.props.status === 'isRunning') {
    props.status = old.props.status;
    if (old.props.output !== undefined) props.output = old.props.output;
    if (old.props.error !== undefined) props.error = old.props.error;
  }
  return { name: next.name, props };
}
