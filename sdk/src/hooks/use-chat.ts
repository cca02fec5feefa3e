import { useCallback, useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import type { PendingApproval, SendMessageBody } from '../../../contracts/oracle.js';
import type { ChatController } from '../chat/chat-controller.js';
import { effectiveOverrides, resolveOracle } from '../config/config-queries.js';
import { useOraclesContext } from '../context/oracles-context.js';
import { oracleKeys } from '../query/keys.js';
import type { ChatStatus, IChatOptions, IMessage, RunState, ToolSchemas, UIComponents } from '../types.js';
import { useOraclesConfig } from './use-oracles-config.js';

/** Whether two component maps hold the same components by the same names. */
function sameComponents(a: UIComponents | undefined, b: UIComponents | undefined): boolean {
  if (a === b) return true;
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  return ka.length === kb.length && ka.every((k) => a?.[k] === b?.[k]);
}

/** The tool of the user-preferences plugin: when a call of it ends, `useUserPreferences` refreshes. */
const SET_USER_PREFERENCES = 'set_user_preferences';

/** What {@link useChat} returns (spec C3, plus run state, older pages, and reference SDK 1.4.0's extras). */
export interface UseChatResult {
  messages: IMessage[];
  /**
   * Submits a user message (spec C3). `metadata` and `attachments` are sent with it as reference SDK 1.4.0
   * does (attachments are references to files on the messaging server).
   */
  sendMessage: (
    message: string,
    metadata?: SendMessageBody['metadata'],
    attachments?: SendMessageBody['attachments'],
  ) => void;
  abortStream: () => Promise<void>;
  status: ChatStatus;
  /** True while submitting or streaming. */
  isSending: boolean;
  /** True while the initial history fetch (or the oracle's config resolution) is in flight. */
  isLoading: boolean;
  /** Load error: the config resolution's (naming its step) or the history's. */
  error: Error | undefined;
  /**
   * Send error: an `OracleRequestError` (402 also calls `onPaymentRequiredError`; 429 carries `retryAfter`
   * seconds), the turn's own error, or a lost stream.
   */
  sendMessageError: Error | undefined;
  /** Re-pulls the newest page of the thread. */
  refetchMessages: () => Promise<IMessage[]>;
  /** Socket connection status. */
  isRealTimeConnected: boolean;
  isConfigReady: boolean;
  /** The durable run of the current or last turn (beyond the spec, as reference SDK 1.4.0). */
  run: RunState;
  /** Re-joins the session's run in flight (after `detachStream`, or to pick up a turn started elsewhere). */
  resumeRun: () => Promise<void>;
  /** Stops reading the answer here without aborting it: the run goes on at the oracle. */
  detachStream: () => void;
  /** True when history has older pages. */
  hasOlderMessages: boolean;
  /** Loads the page before the oldest loaded message. */
  loadOlderMessages: () => Promise<void>;
  /**
   * Tool calls of the current turn that wait for the user's yes or no (the oracle's `needsApproval` tools and
   * `ORACLE_TOOLS_NEED_APPROVAL`), oldest first. They come back with the run after a reload.
   */
  pendingApprovals: readonly PendingApproval[];
  /** Lets a waiting tool call run; the turn goes on. */
  approve: (toolCallId: string) => Promise<void>;
  /** Declines a waiting tool call: it does not run, and the model reads `reason`. */
  deny: (toolCallId: string, reason?: string) => Promise<void>;
}

/**
 * A chat session with an oracle (spec C2, C3): history in pages, streaming answers, abort, re-join of a
 * dropped stream, browser tools and agent-UI actions over the socket.
 *
 * The chat lives in a store outside React, one per session, shared by every `useChat` of that session (one
 * socket, one stream; a browser tool or action runs once). Messages and status are separate subscriptions,
 * callbacks are read from refs at call time, and `streamingMode: 'batched'` (the default) renders at most
 * once per animation frame while tokens stream. `uiComponents` are what `renderMessageContent(content)`
 * draws this chat's components and tool calls with. An empty `sessionId` is "no session yet": nothing is
 * loaded and nothing fails until a message is sent.
 *
 * `overrides` (`{ baseUrl, wsUrl }`, or once on the provider) replace the addresses resolved from the chain; two
 * `useChat` of one session with different overrides are two chats, each with its own server.
 *
 * @example
 * const { messages, sendMessage, status, abortStream } = useChat({
 *   oracleDid, sessionId,
 *   onPaymentRequiredError: (claimIds) => setPaywall(claimIds),
 *   browserTools: { pageTitle: { toolName: 'pageTitle', description: 'Title of the page',
 *     schema: z.object({}), fn: async () => document.title } },
 *   uiComponents: { WeatherCard },
 * });
 * messages.map((m) => <div key={m.id}>{renderMessageContent(m.content)}</div>);
 */
export function useChat<S extends ToolSchemas = ToolSchemas>(options: IChatOptions<S>): UseChatResult {
  const ctx = useOraclesContext();
  const optionsRef = useRef(options as IChatOptions);
  optionsRef.current = options;
  const { oracleDid, sessionId } = options;
  const config = useOraclesConfig(oracleDid, options.overrides);
  const { apiUrl, wsUrl, isConfigReady } = config;
  // Overrides that name both addresses need nothing of `/config` (a server of the reference protocol has none):
  // the chat starts on them, and a failed `/config` is not the chat's error.
  const given = effectiveOverrides(ctx, options.overrides);
  const configOptional = given?.baseUrl !== undefined && given.wsUrl !== undefined;
  const canStart = apiUrl !== undefined && (isConfigReady || configOptional);

  // One chat per user, oracle, session and server: hooks of the same session whose overrides point at other
  // addresses talk to their own server, not to the one the first of them resolved.
  const key = `${ctx.wallet.did}|${oracleDid}|${sessionId}|${options.overrides?.baseUrl ?? ''}|${options.overrides?.wsUrl ?? ''}`;
  const ctxRef = useRef(ctx);
  ctxRef.current = ctx;
  const controller: ChatController = ctx.chats.get(key, () => ({
    sessionId,
    userDid: ctx.wallet.did,
    actions: ctx.actions,
    resolve: async () => {
      const r = await resolveOracle(ctxRef.current, oracleDid, optionsRef.current.overrides);
      return { http: r.http, wsUrl: r.wsUrl };
    },
    onTurnEnd: () =>
      void ctxRef.current.queryClient.invalidateQueries({ queryKey: oracleKeys.sessions(oracleDid) }),
    onToolCallDone: (toolName) => {
      if (toolName === SET_USER_PREFERENCES)
        void ctxRef.current.queryClient.invalidateQueries({ queryKey: oracleKeys.preferences(oracleDid) });
    },
  }));
  const { chats, ui, http } = ctx;
  useEffect(() => chats.use(key, controller), [chats, key, controller]);
  useEffect(() => controller.join(() => optionsRef.current), [controller]);
  useEffect(() => ui.register(() => optionsRef.current.uiComponents), [ui]);
  // Renderers read the map again only when it really changed (an inline `{ WeatherCard }` is a new object
  // on every render, with the same components in it).
  const components = options.uiComponents;
  const seen = useRef(components);
  useEffect(() => {
    if (!sameComponents(seen.current, components)) ui.touch();
    seen.current = components;
  }, [ui, components]);

  useEffect(() => {
    if (!canStart || !apiUrl || sessionId === '') return undefined;
    return controller.retain({ http: http(oracleDid, apiUrl), wsUrl });
  }, [controller, http, oracleDid, sessionId, canStart, apiUrl, wsUrl]);

  const { store } = controller;
  const messages = useSyncExternalStore(store.subscribeMessages, store.getMessages, store.getMessages);
  const meta = useSyncExternalStore(store.subscribeMeta, store.getMeta, store.getMeta);

  const sendMessage = useCallback(
    (message: string, metadata?: SendMessageBody['metadata'], attachments?: SendMessageBody['attachments']) =>
      void controller.sendMessage(
        message,
        { ...(metadata ? { metadata } : {}), ...(attachments ? { attachments } : {}) },
        optionsRef.current,
      ),
    [controller],
  );
  const abortStream = useCallback(() => controller.abortStream(), [controller]);
  const refetchMessages = useCallback(() => controller.refetchMessages(), [controller]);
  const loadOlderMessages = useCallback(() => controller.loadOlderMessages(), [controller]);
  const resumeRun = useCallback(() => controller.resumeRun(), [controller]);
  const detachStream = useCallback(() => controller.detachStream(), [controller]);
  const approve = useCallback(
    (toolCallId: string) => controller.decideApproval(toolCallId, { approved: true }),
    [controller],
  );
  const deny = useCallback(
    (toolCallId: string, reason?: string) =>
      controller.decideApproval(toolCallId, { approved: false, ...(reason ? { reason } : {}) }),
    [controller],
  );

  // No session or no oracle named: idle, not loading.
  const noSession = sessionId === '' || oracleDid === '';
  // The oracle could not be resolved (its chain lookup or `/config` failed): the chat is in error (spec §7).
  const setupError = configOptional ? undefined : config.error;
  const status = setupError !== undefined && meta.status === 'ready' && !canStart ? 'error' : meta.status;
  const isLoading = !noSession && (meta.isLoading || (!canStart && config.error === undefined));
  // One object until a field changes: `messages` and `meta` are the store's snapshots, the functions are
  // bound to the chat's controller.
  return useMemo(
    () => ({
      messages,
      sendMessage,
      abortStream,
      status,
      isSending: meta.status === 'submitted' || meta.status === 'streaming',
      isLoading,
      error: meta.error ?? setupError,
      sendMessageError: meta.sendMessageError,
      refetchMessages,
      isRealTimeConnected: meta.isRealTimeConnected,
      isConfigReady,
      run: meta.run,
      resumeRun,
      detachStream,
      hasOlderMessages: meta.hasOlderMessages,
      loadOlderMessages,
      pendingApprovals: meta.pendingApprovals,
      approve,
      deny,
    }),
    [
      messages,
      meta,
      sendMessage,
      abortStream,
      status,
      isLoading,
      setupError,
      refetchMessages,
      isConfigReady,
      resumeRun,
      detachStream,
      loadOlderMessages,
      approve,
      deny,
    ],
  );
}
