import { randomBytes } from 'node:crypto';
import type { TxResponse } from '../../generated/proto/cosmos/base/abci/v1beta1/abci.js';
import { MsgSend } from '../../generated/proto/cosmos/bank/v1beta1/tx.js';
import { AuthInfo, TxBody, TxRaw } from '../../generated/proto/cosmos/tx/v1beta1/tx.js';
import { createChainGrpcClient } from '../../server/chain-node/grpc-client.js';
import { createTxQueryClient, type TxQueryClient } from '../../server/chain-node/tx-query-client.js';

/** One bank send of a transaction. */
export interface Send {
  from: string;
  to: string;
  amount: { denom: string; amount: string }[];
}

/**
 * The TxRaw bytes of a transaction made of bank sends. Its signature is random bytes the fixture node does not
 * check: two equal payments are still two transactions, as account sequences make them on a real chain.
 */
export function sendTxBytes(sends: Send[], memo = ''): Uint8Array {
  const body = TxBody.encode({
    messages: sends.map((s) => ({
      type_url: '/cosmos.bank.v1beta1.MsgSend',
      value: Buffer.from(
        MsgSend.encode({ from_address: s.from, to_address: s.to, amount: s.amount }).finish(),
      ),
    })),
    memo,
    timeout_height: '0',
  }).finish();
  const authInfo = AuthInfo.encode({
    fee: { amount: [{ denom: 'uixo', amount: '5000' }], gas_limit: '200000', payer: '', granter: '' },
  }).finish();
  return TxRaw.encode({
    body_bytes: Buffer.from(body),
    auth_info_bytes: Buffer.from(authInfo),
    signatures: [randomBytes(64)],
  }).finish();
}

/** A client of the tx service of the chain node an app talks to (its embedded fixture node). */
export function chainTxClient(chainGrpcUrl: string | undefined): TxQueryClient & { close(): void } {
  if (!chainGrpcUrl) throw new Error('the app has no chain node');
  const chain = createChainGrpcClient({ url: chainGrpcUrl });
  return { ...createTxQueryClient(chain, { timeoutMs: 5000 }), close: () => chain.close() };
}

/** Broadcasts a transaction of bank sends on the app's chain node; answers the node's TxResponse. */
export async function broadcastSends(
  chainGrpcUrl: string | undefined,
  sends: Send[],
  memo?: string,
): Promise<TxResponse> {
  const client = chainTxClient(chainGrpcUrl);
  try {
    return await client.broadcastTx(sendTxBytes(sends, memo));
  } finally {
    client.close();
  }
}

/**
 * A `transactSignX` for tests of the SDK against the real service: broadcasts the bank sends it is given (the
 * SDK's `{typeUrl, value: {fromAddress, toAddress, amount}}`) as a real transaction on the app's fixture node,
 * and answers its hash as a wallet does.
 */
export function transactOnChain(
  chainGrpcUrl: string | undefined,
): (messages: readonly unknown[], memo?: string) => Promise<{ transactionHash: string }> {
  return async (messages, memo) => {
    const sends = (
      messages as { value: { fromAddress: string; toAddress: string; amount: Send['amount'] } }[]
    ).map((m) => ({ from: m.value.fromAddress, to: m.value.toAddress, amount: m.value.amount }));
    const result = await broadcastSends(chainGrpcUrl, sends, memo);
    if (result.code !== 0) throw new Error(`the transaction failed: ${result.raw_log}`);
    return { transactionHash: result.txhash };
  };
}
