import { status as Status, type ServiceError } from '@grpc/grpc-js';
import type { MethodName } from '../../generated/proto/chain-descriptor.js';
import type { TxResponse } from '../../generated/proto/cosmos/base/abci/v1beta1/abci.js';
import {
  ServiceService as TxService,
  type BroadcastTxResponse,
  type GetTxResponse,
} from '../../generated/proto/cosmos/tx/v1beta1/service.js';
import type { ChainGrpcClient } from './grpc-client.js';
import type { MethodBinding, UnaryMethod } from './grpc-methods.js';

/**
 * The Cosmos tx service (`cosmos.tx.v1beta1.Service`) over the chain client's channel: the same node, TLS and
 * deadline as the gateway's queries. It is not a REST route of the gateway (the gateway serves the IXO query
 * services only); the credits plugin looks payments up with it.
 */
export interface TxQueryClient {
  /** The transaction, or undefined when the node does not know it (NotFound: unknown, or not in a block yet). */
  getTx(hash: string): Promise<GetTxResponse | undefined>;
  /** Broadcasts TxRaw bytes (the fixture node accepts unsigned ones: development only). */
  broadcastTx(txBytes: Uint8Array): Promise<TxResponse>;
}

/** A tx method as the chain client calls it (the client reads only the definition). */
function binding(definition: UnaryMethod, name: string): MethodBinding {
  // The tx service is not one of the gateway's query methods: its name is not a MethodName, and nothing but
  // `definition` is read by the client.
  return { name: name as MethodName, definition, input: '', output: '' };
}

const GET_TX = binding(TxService.getTx, 'cosmos.tx.v1beta1.Service/GetTx');
const BROADCAST_TX = binding(TxService.broadcastTx, 'cosmos.tx.v1beta1.Service/BroadcastTx');

export function createTxQueryClient(chain: ChainGrpcClient, options: { timeoutMs: number }): TxQueryClient {
  return {
    async getTx(hash) {
      try {
        const { response } = await chain.call(GET_TX, { hash }, { timeoutMs: options.timeoutMs });
        return response as GetTxResponse;
      } catch (err) {
        if ((err as Partial<ServiceError>).code === Status.NOT_FOUND) return undefined;
        throw err;
      }
    },
    async broadcastTx(txBytes) {
      const { response } = await chain.call(
        BROADCAST_TX,
        { tx_bytes: txBytes, mode: 2 },
        { timeoutMs: options.timeoutMs },
      );
      const answer = (response as BroadcastTxResponse).tx_response;
      if (!answer) throw new Error('BroadcastTx answered no tx_response');
      return answer;
    },
  };
}
