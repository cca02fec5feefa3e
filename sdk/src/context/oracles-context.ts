import type { QueryClient } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import type { TokenCache } from '../auth/token-cache.js';
import type { ChatRegistry } from '../chat/chat-registry.js';
import type { PendingPayments } from '../payments/pending-payments.js';
import { OracleHttp } from '../http/oracle-http.js';
import type { OracleOverrides } from '../types.js';
import type { RetryPolicy } from '../config/config-queries.js';
import type { ActionRegistry } from '../tools/action-registry.js';
import type { UiRegistry } from './ui-registry.js';

/** The connected user's wallet and messaging-server session (spec C1). */
export interface IWalletProps {
  address: string;
  /** `did:<method>:<identifier>` */
  did: string;
  matrix: { accessToken: string; homeServer: string };
}

/** Signs and broadcasts chain transactions; resolves to the broadcast result (it carries the tx hash). */
export type TransactionFn = (
  messages: readonly { typeUrl: string; value: unknown }[],
  memo?: string,
) => Promise<unknown>;

/** What every hook reads from {@link OraclesProvider}. */
export interface OraclesContextValue {
  wallet: IWalletProps;
  transactSignX: TransactionFn;
  /** Base URL of the chain gateway's REST routes, for config resolution. */
  chainRestUrl: string | undefined;
  /** Route prefix of the chain REST paths (default `ixo`). */
  chainRoutePrefix: string;
  /** Addresses for every oracle, set once on the provider (a hook's own `overrides` win). */
  overrides: OracleOverrides | undefined;
  /** Tokens per (user DID, oracle DID). */
  tokens: TokenCache;
  /** Signed payments not yet confirmed by their oracle, kept in the delegation storage (`useContractOracle`). */
  payments: PendingPayments;
  withInvocation: boolean;
  /** The TanStack Query client every server-state hook uses (the app's, or the provider's own). */
  queryClient: QueryClient;
  /** How config lookups retry. */
  retry: RetryPolicy;
  actions: ActionRegistry;
  /** UI components registered by `useChat({uiComponents})`, read by `renderMessageContent`. */
  ui: UiRegistry;
  /** One chat per session, shared by every `useChat` of it. */
  chats: ChatRegistry;
  /** The HTTP client of an oracle at a base URL (one per pair, reused). */
  http: (oracleDid: string, baseUrl: string) => OracleHttp;
}

export const OraclesContext = createContext<OraclesContextValue | null>(null);

/** The exact message of spec C1 for a hook used outside {@link OraclesProvider}. */
const OUTSIDE_PROVIDER_MESSAGE = 'useOraclesContext must be used within a OraclesProvider';

/**
 * The provider's context. Throws `useOraclesContext must be used within a OraclesProvider` outside one.
 *
 * @example
 * const { wallet, queryClient } = useOraclesContext();
 */
export function useOraclesContext(): OraclesContextValue {
  const value = useContext(OraclesContext);
  if (!value) throw new Error(OUTSIDE_PROVIDER_MESSAGE);
  return value;
}

/** Creates the per-oracle HTTP client factory of a provider. */
export function httpFactory(
  get: () => { userDid: string; tokens: TokenCache; withInvocation: boolean; timeoutMs?: number | undefined },
): (oracleDid: string, baseUrl: string) => OracleHttp {
  const clients = new Map<string, OracleHttp>();
  return (oracleDid, baseUrl) => {
    const { userDid, tokens, withInvocation, timeoutMs } = get();
    const key = `${userDid}|${oracleDid}|${baseUrl}|${withInvocation}|${timeoutMs ?? ''}`;
    let client = clients.get(key);
    if (!client) {
      client = new OracleHttp(baseUrl, oracleDid, { userDid, tokens, withInvocation, timeoutMs });
      clients.set(key, client);
    }
    return client;
  };
}
