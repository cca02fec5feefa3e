import { QueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import {
  defaultDelegationStorage,
  memoryDelegationStorage,
  type DelegationStorage,
  type SerializedUcan,
} from '../auth/delegation-storage.js';
import { TokenCache, type ReauthorizeFn } from '../auth/token-cache.js';
import { ChatRegistry } from '../chat/chat-registry.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../config/config-queries.js';
import { PendingPayments } from '../payments/pending-payments.js';
import type { OracleOverrides } from '../types.js';
import { ActionRegistry } from '../tools/action-registry.js';
import {
  httpFactory,
  OraclesContext,
  type IWalletProps,
  type OraclesContextValue,
  type TransactionFn,
} from './oracles-context.js';
import { UiRegistry } from './ui-registry.js';

/**
 * Options of {@link OraclesProvider}: spec C1 (`initialWallet`, `transactSignX`, `createDelegation`,
 * `createInvocation`), `queryClient` as reference SDK 1.4.0, and where oracles are found.
 */
export interface IOraclesProviderProps {
  initialWallet: IWalletProps;
  transactSignX: TransactionFn;
  /** Mints a user-to-oracle delegation; cached per (user, oracle) and sent as `x-ucan-delegation`. */
  createDelegation: (oracleDid: string) => Promise<SerializedUcan>;
  /** Mints a short-lived invocation; when given, sent as `Authorization: Bearer` with `X-Auth-Type: ucan`. */
  createInvocation?: (oracleDid: string) => Promise<SerializedUcan>;
  /**
   * The app's TanStack Query client: the library's queries (keys under {@link oracleKeys}) live in its
   * cache and show in its devtools. Without it the provider makes one of its own, used only by this
   * library (it renders no `QueryClientProvider`, so a host's stays in force for the subtree).
   */
  queryClient?: QueryClient;
  /**
   * Base URL of the chain gateway's REST routes (beyond spec C1): oracle DIDs are resolved to their API and
   * WebSocket URLs through `GET {chainRestUrl}/{prefix}/entity/{did}`. Without it, set `overrides.baseUrl`.
   */
  chainRestUrl?: string;
  /** Route prefix of the chain REST paths; default `ixo`. */
  chainRoutePrefix?: string;
  /**
   * Addresses for every oracle, set once (`{ baseUrl, wsUrl }`); a hook's own `overrides` win. With
   * `baseUrl` no chain lookup is needed, e.g. against a local `npm start`.
   */
  overrides?: OracleOverrides;
  /**
   * Called before `createDelegation` runs again for an oracle the user had authorized (spec §5 C step 4:
   * the kept delegation expired, or the oracle asks for a new one): show your own prompt here. Answer
   * `false` to decline (the request fails with `ReauthorizationDeclinedError`).
   */
  onReauthorize?: ReauthorizeFn;
  /**
   * Where delegations are kept across page loads, per (user, oracle), never used past expiry. Default:
   * `localStorage` in a browser (as the reference SDK), memory elsewhere; `null` keeps them in memory only.
   * `useContractOracle` keeps a signed, not yet confirmed payment here too (key `oracles_pending_payment::…`),
   * so that a reload reports it again rather than paying twice.
   */
  delegationStorage?: DelegationStorage | null;
  /** How config lookups retry: `{ attempts: 3, baseMs: 1000, maxMs: 30000 }` by default. */
  retry?: Partial<RetryPolicy>;
  /**
   * How long a request to an oracle may wait for its answer to begin, ms (default 120,000, as the reference
   * SDK): past it the request fails with an `OracleRequestError` (`status` 0, `code` `timeout`) naming the
   * step and the URL. A stream that has begun is not cut by it.
   */
  requestTimeoutMs?: number;
  children?: ReactNode;
}

/**
 * Required around every hook of this library (spec C1). Holds the wallet, the token cache, the query client
 * (the app's `queryClient`, or its own for its whole life), one chat per session, and the registered
 * agent-UI actions and UI components.
 *
 * @example
 * <OraclesProvider
 *   initialWallet={{ address, did, matrix: { accessToken, homeServer } }}
 *   transactSignX={(msgs, memo) => wallet.signAndBroadcast(msgs, memo)}
 *   createDelegation={(oracleDid) => ucan.delegate(oracleDid)}
 *   createInvocation={(oracleDid) => ucan.invoke(oracleDid)}
 *   chainRestUrl="https://rest.example.org"
 *   queryClient={queryClient}
 * >
 *   <App />
 * </OraclesProvider>
 */
export function OraclesProvider(props: IOraclesProviderProps): ReactNode {
  // Callbacks live in a ref: a new closure on every parent render never re-creates the caches.
  const latest = useRef(props);
  latest.current = props;
  const [stable] = useState(() => {
    const p = props;
    const storage =
      p.delegationStorage === null ? undefined : (p.delegationStorage ?? defaultDelegationStorage());
    const tokens = new TokenCache(
      (kind, oracleDid) => {
        const now = latest.current;
        if (kind === 'invocation') {
          if (!now.createInvocation) return Promise.reject(new Error('createInvocation is not set'));
          return now.createInvocation(oracleDid);
        }
        return now.createDelegation(oracleDid);
      },
      Date.now,
      storage,
      (request) => latest.current.onReauthorize?.(request),
    );
    return {
      tokens,
      payments: new PendingPayments(storage ?? memoryDelegationStorage()),
      ownQueryClient: new QueryClient(),
      actions: new ActionRegistry(),
      ui: new UiRegistry(),
      chats: new ChatRegistry(),
      http: httpFactory(() => ({
        userDid: latest.current.initialWallet.did,
        tokens,
        withInvocation: latest.current.createInvocation !== undefined,
        timeoutMs: latest.current.requestTimeoutMs,
      })),
    };
  });
  const queryClient = props.queryClient ?? stable.ownQueryClient;
  // What QueryClientProvider does for the client it provides (focus and online refetching); counted, so a
  // host's own QueryClientProvider around the same client is fine.
  useEffect(() => {
    queryClient.mount();
    return () => queryClient.unmount();
  }, [queryClient]);

  const { initialWallet, chainRestUrl, chainRoutePrefix, overrides, retry } = props;
  const withInvocation = props.createInvocation !== undefined;
  const baseUrl = overrides?.baseUrl;
  const wsUrl = overrides?.wsUrl;
  const { attempts, baseMs, maxMs, jitter } = retry ?? {};
  const value = useMemo<OraclesContextValue>(
    () => ({
      tokens: stable.tokens,
      payments: stable.payments,
      actions: stable.actions,
      ui: stable.ui,
      chats: stable.chats,
      http: stable.http,
      queryClient,
      wallet: initialWallet,
      transactSignX: (messages, memo) => latest.current.transactSignX(messages, memo),
      chainRestUrl: chainRestUrl?.replace(/\/+$/, ''),
      chainRoutePrefix: chainRoutePrefix ?? 'ixo',
      overrides:
        baseUrl === undefined && wsUrl === undefined
          ? undefined
          : { ...(baseUrl !== undefined ? { baseUrl } : {}), ...(wsUrl !== undefined ? { wsUrl } : {}) },
      withInvocation,
      retry: {
        attempts: attempts ?? DEFAULT_RETRY.attempts,
        baseMs: baseMs ?? DEFAULT_RETRY.baseMs,
        maxMs: maxMs ?? DEFAULT_RETRY.maxMs,
        jitter: jitter ?? DEFAULT_RETRY.jitter,
      },
    }),
    [
      stable,
      queryClient,
      initialWallet,
      chainRestUrl,
      chainRoutePrefix,
      baseUrl,
      wsUrl,
      withInvocation,
      attempts,
      baseMs,
      maxMs,
      jitter,
    ],
  );
  return <OraclesContext.Provider value={value}>{props.children}</OraclesContext.Provider>;
}
