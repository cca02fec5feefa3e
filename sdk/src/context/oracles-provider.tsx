import { useMemo, useRef, useState, type ReactNode } from 'react';
import { TokenCache, type SerializedUcan } from '../auth/token-cache.js';
import { QueryCache } from '../store/query-cache.js';
import { ActionRegistry } from './action-registry.js';
import {
  httpFactory,
  OraclesContext,
  type IWalletProps,
  type OraclesContextValue,
  type TransactionFn,
} from './oracles-context.js';

/**
 * Options of {@link OraclesProvider}: spec C1, plus where the chain gateway's REST routes are.
 */
export interface IOraclesProviderProps {
  initialWallet: IWalletProps;
  transactSignX: TransactionFn;
  /** Mints a user-to-oracle delegation; cached per (user, oracle) and sent as `x-ucan-delegation`. */
  createDelegation: (oracleDid: string) => Promise<SerializedUcan>;
  /** Mints a short-lived invocation; when given, sent as `Authorization: Bearer` with `X-Auth-Type: ucan`. */
  createInvocation?: (oracleDid: string) => Promise<SerializedUcan>;
  /**
   * Base URL of the chain gateway's REST routes (beyond spec C1): oracle DIDs are resolved to their API and
   * WebSocket URLs through `GET {chainRestUrl}/{prefix}/entity/{did}`. Without it, pass `overrides.baseUrl`.
   */
  chainRestUrl?: string;
  /** Route prefix of the chain REST paths; default `ixo`. */
  chainRoutePrefix?: string;
  children?: ReactNode;
}

/**
 * Required around every hook of this library (spec C1). Holds the wallet, the token cache, one query cache
 * for its whole life and the registered agent-UI actions.
 *
 * @example
 * <OraclesProvider
 *   initialWallet={{ address, did, matrix: { accessToken, homeServer } }}
 *   transactSignX={(msgs, memo) => wallet.signAndBroadcast(msgs, memo)}
 *   createDelegation={(oracleDid) => ucan.delegate(oracleDid)}
 *   createInvocation={(oracleDid) => ucan.invoke(oracleDid)}
 *   chainRestUrl="https://rest.example.org"
 * >
 *   <App />
 * </OraclesProvider>
 */
export function OraclesProvider(props: IOraclesProviderProps): ReactNode {
  // Callbacks live in a ref: a new closure on every parent render never re-creates the caches.
  const latest = useRef(props);
  latest.current = props;
  const [stable] = useState(() => {
    const tokens = new TokenCache((kind, oracleDid) => {
      const p = latest.current;
      if (kind === 'invocation') {
        if (!p.createInvocation) return Promise.reject(new Error('createInvocation is not set'));
        return p.createInvocation(oracleDid);
      }
      return p.createDelegation(oracleDid);
    });
    return {
      tokens,
      cache: new QueryCache(),
      actions: new ActionRegistry(),
      http: httpFactory(() => ({
        userDid: latest.current.initialWallet.did,
        tokens,
        withInvocation: latest.current.createInvocation !== undefined,
      })),
    };
  });
  const { initialWallet, chainRestUrl, chainRoutePrefix } = props;
  const withInvocation = props.createInvocation !== undefined;
  const value = useMemo<OraclesContextValue>(
    () => ({
      ...stable,
      wallet: initialWallet,
      transactSignX: (messages, memo) => latest.current.transactSignX(messages, memo),
      chainRestUrl: chainRestUrl?.replace(/\/+$/, ''),
      chainRoutePrefix: chainRoutePrefix ?? 'ixo',
      withInvocation,
    }),
    [stable, initialWallet, chainRestUrl, chainRoutePrefix, withInvocation],
  );
  return <OraclesContext.Provider value={value}>{props.children}</OraclesContext.Provider>;
}
