import { useMutation } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { CreditsAccount } from '../../../contracts/credits.js';
import { creditsRoutes as creditsContract } from '../http/routes.js';
import { resolveOracle } from '../config/config-queries.js';
import { useOraclesContext } from '../context/oracles-context.js';
import type { PendingPayment } from '../payments/pending-payments.js';
import { reportPayment, type ReportRetry } from '../payments/report-payment.js';
import { oracleKeys } from '../query/keys.js';
import type { OracleOverrides } from '../types.js';

/** The bank message `useContractOracle` signs. */
export interface MsgSend {
  typeUrl: '/cosmos.bank.v1beta1.MsgSend';
  value: { fromAddress: string; toAddress: string; amount: { denom: string; amount: string }[] };
}

/** Arguments of `contractOracle`. */
export interface ContractOracleArgs {
  oracleDid: string;
  /**
   * Amount to pay, an integer string (or number) in the smallest unit of the oracle's `payTo.denom`. Unused
   * while a payment to this oracle is pending: that payment is reported again instead.
   */
  amount: string | number;
  /**
   * Words of the app's own for the transaction's memo. The oracle's payment reference for the user (its
   * `paymentMemo`) always comes first: without it a payment is not credited to a `did:key` user.
   */
  memo?: string;
  overrides?: OracleOverrides;
}

/** Result of a payment: the new balance and the claims it settled. */
export interface ContractOracleResult {
  txHash: string;
  balance: number;
  settledClaims: string[];
}

/** Options of {@link useContractOracle}. */
export interface UseContractOracleOptions {
  /**
   * The oracle whose pending payment `pendingPayment` shows from the first render (after a reload, say).
   * Without it, `pendingPayment` follows the oracle of the latest `contractOracle` call.
   */
  oracleDid?: string;
  /**
   * How a report the chain node cannot see yet (404 `payment_not_found`) is retried: with the SDK's backoff
   * (default `{ baseMs: 1000, maxMs: 10000, jitter: 0.2 }`) for up to `withinMs` (default 60000).
   */
  reportRetry?: ReportRetry;
}

/** What {@link useContractOracle} returns. */
export interface UseContractOracleResult {
  /**
   * Pays the oracle on chain through `transactSignX`, then reports the payment to the oracle. While a
   * payment to the oracle is pending, it reports that payment again and signs nothing.
   */
  contractOracle: (args: ContractOracleArgs) => Promise<ContractOracleResult>;
  /** Reads the user's credits with an oracle: balance, price, unpaid claims and where to pay. */
  getCredits: (oracleDid: string, overrides?: OracleOverrides) => Promise<CreditsAccount>;
  /**
   * The signed transfer the oracle has not confirmed yet (see `options.oracleDid`), kept in the provider's
   * `delegationStorage` until its report is answered for good; `undefined` when there is none.
   */
  pendingPayment: PendingPayment | undefined;
  /**
   * Forgets the pending payment of an oracle, so that the next `contractOracle` signs a new transfer. Only for
   * a transaction known never to reach the chain (rejected by the node, expired): otherwise the user pays twice.
   */
  discardPendingPayment: (oracleDid: string) => void;
  isContracting: boolean;
  error: Error | undefined;
}

/** Reads a transaction hash from what `transactSignX` returned. */
export function txHashOf(result: unknown): string | undefined {
  if (typeof result === 'string') return result;
  if (typeof result === 'object' && result !== null) {
    const r = result as { transactionHash?: unknown; txHash?: unknown };
    if (typeof r.transactionHash === 'string') return r.transactionHash;
    if (typeof r.txHash === 'string') return r.txHash;
  }
  return undefined;
}

/**
 * Pays to contract (subscribe to) an oracle (spec C5), once:
 *
 * 1. Reads where to pay (`GET /credits`: `payTo`, the user's `paymentMemo`, the outstanding claims).
 * 2. Signs a bank `MsgSend` to `payTo.address` with the provider's `transactSignX`, its memo the user's
 *    payment reference (so that only this user can report it), then the app's `memo`.
 * 3. Keeps the transaction as the pending payment of (user, oracle) in the provider's `delegationStorage`
 *    (key `oracles_pending_payment::<userDid>::<oracleDid>`) before reporting it.
 * 4. Reports it (`POST /credits/payments`), which credits the balance and settles the claims. A 404
 *    `payment_not_found` (the block is not in yet) is retried with backoff for up to 60 s, then fails with the
 *    payment kept pending. A 200 clears it; so does a final 422 `payment_mismatch` / `payment_failed` or 409
 *    `payment_conflict`, whose error surfaces. Any other failure keeps it pending.
 *
 * While a payment is pending, `contractOracle` goes straight to step 4 with it: `transactSignX` is called at
 * most once per call and never while a payment is pending, and two calls at once share one run. A TanStack
 * mutation: `isContracting` while it runs, `error` when it failed. `overrides` as in `useOraclesConfig`.
 *
 * @example
 * const { contractOracle, pendingPayment, error } = useContractOracle({ oracleDid });
 * await contractOracle({ oracleDid, amount: '1000000' });
 * // after a failed report: pendingPayment?.txHash is the transfer the next call reports again
 */
export function useContractOracle(options: UseContractOracleOptions = {}): UseContractOracleResult {
  const ctx = useOraclesContext();
  const userDid = ctx.wallet.did;
  const retry = useRef(options.reportRetry);
  retry.current = options.reportRetry;
  const [lastOracle, setLastOracle] = useState<string>();
  const watched = options.oracleDid ?? lastOracle;
  const read = () => (watched === undefined ? undefined : ctx.payments.get(userDid, watched));
  const pendingPayment = useSyncExternalStore(ctx.payments.subscribe, read, read);
  const getCredits = useCallback(
    async (oracleDid: string, overrides?: OracleOverrides) => {
      const { http } = await resolveOracle(ctx, oracleDid, overrides);
      return http.call(creditsContract.account, {});
    },
    [ctx],
  );
  const discardPendingPayment = useCallback(
    (oracleDid: string) => ctx.payments.clear(userDid, oracleDid),
    [ctx, userDid],
  );
  const mutation = useMutation(
    {
      mutationFn: ({ oracleDid, amount, memo, overrides }: ContractOracleArgs) => {
        setLastOracle(oracleDid);
        return ctx.payments.exclusive(userDid, oracleDid, async () => {
          const { http } = await resolveOracle(ctx, oracleDid, overrides);
          let pending = ctx.payments.get(userDid, oracleDid);
          if (!pending) {
            const account = await http.call(creditsContract.account, {});
            const coin = { denom: account.payTo.denom, amount: String(amount) };
            const msg: MsgSend = {
              typeUrl: '/cosmos.bank.v1beta1.MsgSend',
              value: { fromAddress: ctx.wallet.address, toAddress: account.payTo.address, amount: [coin] },
            };
            // The reference binds the payment to this user: nobody else can report it (the oracle checks the memo).
            const txMemo = memo ? `${account.paymentMemo} ${memo}` : account.paymentMemo;
            const txHash = txHashOf(await ctx.transactSignX([msg], txMemo));
            if (!txHash) throw new Error('transactSignX returned no transaction hash');
            pending = {
              txHash,
              amount: coin,
              signedAt: Date.now(),
              paysFor: [...account.outstandingClaims].sort(),
            };
            // Kept before it is reported: whatever happens to the report, no second transfer is signed.
            ctx.payments.set(userDid, oracleDid, pending);
          }
          const paid = await reportPayment(http, pending, retry.current, () =>
            ctx.payments.clear(userDid, oracleDid),
          );
          return { txHash: pending.txHash, ...paid };
        });
      },
      onSuccess: (_r, { oracleDid }) =>
        ctx.queryClient.invalidateQueries({ queryKey: oracleKeys.credits(oracleDid, userDid) }),
    },
    ctx.queryClient,
  );
  const { mutateAsync: contractOracle, isPending: isContracting } = mutation;
  const error = mutation.error ?? undefined;
  // One object until a field changes (`pendingPayment` is the payment store's cached snapshot).
  return useMemo(
    () => ({ contractOracle, getCredits, pendingPayment, discardPendingPayment, isContracting, error }),
    [contractOracle, getCredits, pendingPayment, discardPendingPayment, isContracting, error],
  );
}
