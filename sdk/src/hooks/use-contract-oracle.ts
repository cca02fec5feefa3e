import { useMutation } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { CreditsAccount } from '../../../contracts/credits.js';
import { creditsRoutes as creditsContract } from '../http/routes.js';
import { resolveOracle } from '../config/config-queries.js';
import { useOraclesContext } from '../context/oracles-context.js';
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
  /** Amount to pay, an integer string (or number) in the smallest unit of the oracle's `payTo.denom`. */
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

/** What {@link useContractOracle} returns. */
export interface UseContractOracleResult {
  /** Pays the oracle on chain through `transactSignX`, then reports the payment to the oracle. */
  contractOracle: (args: ContractOracleArgs) => Promise<ContractOracleResult>;
  /** Reads the user's credits with an oracle: balance, price, unpaid claims and where to pay. */
  getCredits: (oracleDid: string, overrides?: OracleOverrides) => Promise<CreditsAccount>;
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
 * Pays to contract (subscribe to) an oracle (spec C5): reads where to pay (`GET /credits`), signs a bank
 * `MsgSend` from the wallet to the oracle's `payTo.address` with the provider's `transactSignX` (its memo carries
 * the user's payment reference, `paymentMemo`, so that only this user can report the payment), then reports
 * the transaction (`POST /credits/payments`), which credits the balance and settles outstanding claims. A
 * TanStack mutation: `isContracting` while it runs, `error` when it failed. The oracle's config is waited
 * for when it is still resolving; `overrides` as in `useOraclesConfig`.
 *
 * @example
 * const { contractOracle, isContracting, error } = useContractOracle();
 * await contractOracle({ oracleDid, amount: '1000000' });
 */
export function useContractOracle(): UseContractOracleResult {
  const ctx = useOraclesContext();
  const getCredits = useCallback(
    async (oracleDid: string, overrides?: OracleOverrides) => {
      const { http } = await resolveOracle(ctx, oracleDid, overrides);
      return http.call(creditsContract.account, {});
    },
    [ctx],
  );
  const mutation = useMutation(
    {
      mutationFn: async ({ oracleDid, amount, memo, overrides }: ContractOracleArgs) => {
        const { http } = await resolveOracle(ctx, oracleDid, overrides);
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
        const paid = await http.call(creditsContract.pay, { body: { txHash, amount: coin } });
        return { txHash, ...paid };
      },
      onSuccess: (_r, { oracleDid }) =>
        ctx.queryClient.invalidateQueries({ queryKey: oracleKeys.credits(oracleDid, ctx.wallet.did) }),
    },
    ctx.queryClient,
  );
  return {
    contractOracle: mutation.mutateAsync,
    getCredits,
    isContracting: mutation.isPending,
    error: mutation.error ?? undefined,
  };
}
