/**
 * `@open-oracles/oracles-client-sdk`: the React client library of an agent ("oracle") service (spec part C).
 * Server state (config, sessions, models, preferences) lives in TanStack Query; chats in stores of their own.
 *
 * @example
 * import { OraclesProvider, useChat, renderMessageContent } from '@open-oracles/oracles-client-sdk';
 *
 * @packageDocumentation
 */
export { OraclesProvider } from './context/oracles-provider.js';
export type { IOraclesProviderProps } from './context/oracles-provider.js';
export { useOraclesContext } from './context/oracles-context.js';
export type { IWalletProps, OraclesContextValue, TransactionFn } from './context/oracles-context.js';
export { useChat } from './hooks/use-chat.js';
export type { UseChatResult } from './hooks/use-chat.js';
export { useAgAction } from './hooks/use-ag-action.js';
export type { AgActionConfig } from './hooks/use-ag-action.js';
export { useOracleSessions } from './hooks/use-oracle-sessions.js';
export type { UseOracleSessionsOptions, UseOracleSessionsResult } from './hooks/use-oracle-sessions.js';
export { useOraclesConfig } from './hooks/use-oracles-config.js';
export type { OraclesConfigResult } from './hooks/use-oracles-config.js';
export { useContractOracle } from './hooks/use-contract-oracle.js';
export type {
  ContractOracleArgs,
  ContractOracleResult,
  MsgSend,
  UseContractOracleOptions,
  UseContractOracleResult,
} from './hooks/use-contract-oracle.js';
export type { PendingPayment } from './payments/pending-payments.js';
export type { ReportRetry } from './payments/report-payment.js';
export { useMemoryEngine } from './hooks/use-memory-engine.js';
export type { UseMemoryEngineResult } from './hooks/use-memory-engine.js';
export { useGetOpenIdToken, getOpenIdToken } from './hooks/use-get-openid-token.js';
export type { OpenIdToken, OpenIdTokenArgs, UseGetOpenIdTokenResult } from './hooks/use-get-openid-token.js';
export { useModels } from './hooks/use-models.js';
export type { UseModelsResult } from './hooks/use-models.js';
export { useUserPreferences } from './hooks/use-user-preferences.js';
export type { UseUserPreferencesOptions, UseUserPreferencesResult } from './hooks/use-user-preferences.js';
export { renderMessageContent } from './render/render-message-content.js';
export { DefaultToolCall } from './render/default-tool-call.js';
export { defineBrowserTool } from './tools/define-browser-tool.js';
export { oracleKeys, ORACLE_QUERY_PREFIX } from './query/keys.js';
export { OracleRequestError, isRateLimited } from './http/oracle-request-error.js';
export type { OracleStep } from './http/oracle-request-error.js';
export { RunDisconnectedError } from './chat/chat-transport.js';
export type { RejoinOptions } from './types.js';
export { ReauthorizationDeclinedError } from './auth/token-cache.js';
export type { ReauthorizationReason, ReauthorizationRequest, ReauthorizeFn } from './auth/token-cache.js';
export { memoryDelegationStorage } from './auth/delegation-storage.js';
export type { DelegationStorage, SerializedUcan } from './auth/delegation-storage.js';
export type { RetryPolicy } from './config/config-queries.js';
export type { BackoffOptions } from './util/backoff.js';
export type {
  AgActionComponentProps,
  AgActionRender,
  AnyEvent,
  BrowserTool,
  BrowserTools,
  ChatStatus,
  IChatOptions,
  IComponentMetadata,
  IMessage,
  MessageContent,
  OracleOverrides,
  PartStatus,
  RunState,
  StreamingMode,
  ToolApprovalComponentProps,
  ToolCallComponentProps,
  ToolSchemas,
  TypedBrowserTools,
  UIComponentBaseProps,
  UIComponents,
} from './types.js';
export type {
  ChatSession,
  ModelInfo,
  OracleConfig,
  PendingApproval,
  RunInfo,
  StoredToolCall,
  TranscriptPage,
} from '../../contracts/oracle.js';
export type { UserPreferences } from '../../contracts/preferences.js';
export type { CreditsAccount } from '../../contracts/credits.js';
export type { Memory, RememberBody } from '../../contracts/memory.js';
export type { OracleError, OracleErrorCode } from '../../contracts/errors.js';
