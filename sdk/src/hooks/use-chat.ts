import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react';
import { ChatController } from '../chat/chat-controller.js';
import { useOraclesContext } from '../context/oracles-context.js';
import type { ChatStatus, IChatOptions, IMessage, RunState } from '../types.js';
import { useOraclesConfig } from './use-oracles-config.js';

/** What {@link useChat} returns (spec C3, plus run state and older pages of history). */
export interface UseChatResult {
  messages: IMessage[];
  sendMessage: (message: string) => void;
  abortStream: () => Promise<void>;
  status: ChatStatus;
  /** True while submitting or streaming. */
  isSending: boolean;
  /** True while the initial history fetch is in flight. */
  isLoading: boolean;
  /** Load error. */
  error: Error | undefined;
  /** Send error. */
  sendMessageError: Error | undefined;
  /** Re-pulls the newest page of the thread. */
  refetchMessages: () => Promise<IMessage[]>;
  /** Socket connection status. */
  isRealTimeConnected: boolean;
  isConfigReady: boolean;
  /** The durable run of the current or last turn (beyond the spec, as reference SDK 1.4.0). */
  run: RunState;
  /** True when history has older pages. */
  hasOlderMessages: boolean;
  /** Loads the page before the oldest loaded message. */
  loadOlderMessages: () => Promise<void>;
}

/**
 * A chat session with an oracle (spec C2, C3): history in pages, streaming answers, abort, re-join of a
 * dropped stream, browser tools and agent-UI actions over the socket.
 *
 * The chat lives in a store outside React: messages and status are separate subscriptions, callbacks are
 * read from refs at call time, and `streamingMode: 'batched'` (the default) renders at most once per
 * animation frame while tokens stream.
 *
 * @example
 * const { messages, sendMessage, status, abortStream } = useChat({
 *   oracleDid, sessionId,
 *   onPaymentRequiredError: (claimIds) => setPaywall(claimIds),
 *   browserTools: { pageTitle: { toolName: 'pageTitle', description: 'Title of the page',
 *     schema: z.object({}), fn: async () => document.title } },
 *   uiComponents: { WeatherCard },
 * });
 */
export function useChat(options: IChatOptions): UseChatResult {
  const ctx = useOraclesContext();
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const { oracleDid, sessionId } = options;
  const {
    apiUrl,
    wsUrl,
    isConfigReady,
    isLoading: configLoading,
  } = useOraclesConfig(oracleDid, options.overrides);

  const key = `${ctx.wallet.did}|${oracleDid}|${sessionId}`;
  const slot = useRef<{ key: string; controller: ChatController } | null>(null);
  if (slot.current?.key !== key) {
    slot.current = {
      key,
      controller: new ChatController({
        sessionId,
        userDid: ctx.wallet.did,
        actions: ctx.actions,
        options: () => optionsRef.current,
        onTurnEnd: () => void ctx.cache.invalidate(['oracle-sessions', oracleDid]),
      }),
    };
  }
  const controller = slot.current.controller;
  const { http } = ctx;

  useEffect(() => {
    if (!isConfigReady || !apiUrl) return undefined;
    return controller.attach({ http: http(oracleDid, apiUrl), wsUrl });
  }, [controller, http, oracleDid, isConfigReady, apiUrl, wsUrl]);

  const { store } = controller;
  const messages = useSyncExternalStore(store.subscribeMessages, store.getMessages, store.getMessages);
  const meta = useSyncExternalStore(store.subscribeMeta, store.getMeta, store.getMeta);

  const sendMessage = useCallback((message: string) => void controller.sendMessage(message), [controller]);
  const abortStream = useCallback(() => controller.abortStream(), [controller]);
  const refetchMessages = useCallback(() => controller.refetchMessages(), [controller]);
  const loadOlderMessages = useCallback(() => controller.loadOlderMessages(), [controller]);

  return {
    messages,
    sendMessage,
    abortStream,
    status: meta.status,
    isSending: meta.status === 'submitted' || meta.status === 'streaming',
    isLoading: meta.isLoading || (configLoading && !isConfigReady),
    error: meta.error,
    sendMessageError: meta.sendMessageError,
    refetchMessages,
    isRealTimeConnected: meta.isRealTimeConnected,
    isConfigReady,
    run: meta.run,
    hasOlderMessages: meta.hasOlderMessages,
    loadOlderMessages,
  };
}
