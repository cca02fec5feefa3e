import {
  Metadata,
  Server,
  ServerCredentials,
  status as Status,
  type sendUnaryData,
  type ServerUnaryCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { MethodName } from '../../../generated/proto/chain-descriptor.js';
import {
  ServiceService as TxService,
  type BroadcastTxRequest,
  type GetTxRequest,
} from '../../../generated/proto/cosmos/tx/v1beta1/service.js';
import { ChainError } from '../chain-error.js';
import { BLOCK_HEIGHT_HEADER } from '../../chain-node/grpc-client.js';
import { QUERY_SERVICES, toMethodName, type UnaryMethod } from '../../chain-node/grpc-methods.js';
import { loadFixtureData, type FixtureData } from './fixture-data.js';
import { queryHandlers, type QueryHandler } from './query-handlers.js';
import { TxStore } from './tx-store.js';

/** The Cosmos tx service methods the fixture node serves (GetTx; BroadcastTx for development). */
export type TxMethodName = 'cosmos.tx.v1beta1.Service/GetTx' | 'cosmos.tx.v1beta1.Service/BroadcastTx';

/** Message of the InvalidArgument for a block height above the node's latest one (as the SDK words it). */
export const FUTURE_HEIGHT_MESSAGE = 'cannot query with height in the future; please provide a valid height';

/** One call the node received. */
export interface ReceivedCall {
  method: MethodName | TxMethodName;
  /** The `x-cosmos-block-height` metadata of the call, if any. */
  blockHeight: string | undefined;
}

/**
 * An in-process IXO chain node for development and tests: a real grpc-js server on loopback serving the
 * query services of contracts/proto over fixture data, with switches to fail or stall calls.
 */
export interface FixtureNode {
  /** `127.0.0.1:<port>`, the value for CHAIN_GRPC_URL. */
  readonly address: string;
  readonly port: number;
  readonly data: FixtureData;
  /**
   * Its transactions (`cosmos.tx.v1beta1.Service`): GetTx reads them; BroadcastTx, development only, executes a
   * bank send without checking signatures (see TxStore).
   */
  readonly transactions: TxStore;
  /** Calls received so far, oldest first. */
  readonly received: readonly ReceivedCall[];
  /** The next call (of `method`, or any) fails with this status and message. */
  failNext(code: Status, message: string, method?: MethodName | TxMethodName): void;
  /** The next call (of `method`, or any) is answered only after `ms` (or never, if the caller gives up). */
  stallNext(ms: number, method?: MethodName | TxMethodName): void;
  /** Stops at once, cancelling calls in flight. */
  close(): Promise<void>;
}

export interface FixtureNodeOptions {
  /** Base URL the oracle entity advertises (replaces `{{PUBLIC_BASE_URL}}` in the fixtures). */
  publicBaseUrl: string;
  /** 0 (default) picks a free port; pass a previous node's port to restart "the same" node. */
  port?: number;
  /** Preloaded data (e.g. shared between restarts); loaded from fixtures/chain otherwise. */
  data?: FixtureData;
}

interface Trap {
  method: MethodName | TxMethodName | undefined;
  apply(call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>, respond: () => void): void;
}

/** Starts a fixture node on 127.0.0.1. */
export async function startFixtureNode(options: FixtureNodeOptions): Promise<FixtureNode> {
  const data = options.data ?? (await loadFixtureData({ publicBaseUrl: options.publicBaseUrl }));
  const handlers = queryHandlers(data);
  const transactions = new TxStore(() => data.height);
  const received: ReceivedCall[] = [];
  const traps: Trap[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const takeTrap = (method: MethodName | TxMethodName): Trap | undefined => {
    const index = traps.findIndex((t) => t.method === undefined || t.method === method);
    return index < 0 ? undefined : traps.splice(index, 1)[0];
  };

  const serve =
    (method: MethodName | TxMethodName, handler: QueryHandler) =>
    (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): void => {
      const requested = call.metadata.get(BLOCK_HEIGHT_HEADER)[0];
      const blockHeight = typeof requested === 'string' ? requested : undefined;
      received.push({ method, blockHeight });
      const respond = (): void => {
        try {
          const height = answerHeight(blockHeight, data.height);
          const response = (handler as (request: unknown) => unknown)(call.request);
          const header = new Metadata();
          header.set(BLOCK_HEIGHT_HEADER, height);
          call.sendMetadata(header);
          callback(null, response);
        } catch (err) {
          const error = ChainError.from(err);
          callback({ name: error.name, message: error.message, code: error.code, details: error.message });
        }
      };
      const trap = takeTrap(method);
      if (trap) trap.apply(call, callback, respond);
      else respond();
    };

  const server = new Server();
  for (const service of Object.values(QUERY_SERVICES)) {
    const implementation: UntypedServiceImplementation = {};
    for (const [key, definition] of Object.entries(service as Record<string, UnaryMethod>)) {
      const method = toMethodName(definition.path);
      if (method) implementation[key] = serve(method, handlers[method]);
    }
    server.addService(service, implementation);
  }
  server.addService(TxService, {
    getTx: serve('cosmos.tx.v1beta1.Service/GetTx', (request) =>
      transactions.get((request as GetTxRequest).hash),
    ),
    broadcastTx: serve('cosmos.tx.v1beta1.Service/BroadcastTx', (request) => ({
      tx_response: transactions.broadcast((request as BroadcastTxRequest).tx_bytes),
    })),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${options.port ?? 0}`, ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );

  return {
    address: `127.0.0.1:${port}`,
    port,
    data,
    transactions,
    received,
    failNext(code, message, method) {
      traps.push({
        method,
        apply: (_call, callback) => callback({ name: 'Error', message, code, details: message }),
      });
    },
    stallNext(ms, method) {
      traps.push({
        method,
        apply: (call, _callback, respond) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            if (!call.cancelled) respond();
          }, ms);
          timers.add(timer);
          call.on('cancelled', () => {
            clearTimeout(timer);
            timers.delete(timer);
          });
        },
      });
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.forceShutdown();
      return Promise.resolve();
    },
  };
}

/** The height a query is answered at: the requested one (validated like the SDK does), else the latest. */
function answerHeight(requested: string | undefined, latest: bigint): string {
  if (requested === undefined) return String(latest);
  if (!/^\d{1,19}$/.test(requested)) {
    throw new ChainError(Status.INVALID_ARGUMENT, `invalid height header ${JSON.stringify(requested)}`);
  }
  const height = BigInt(requested);
  if (height > latest) throw new ChainError(Status.INVALID_ARGUMENT, FUTURE_HEIGHT_MESSAGE);
  return String(height === 0n ? latest : height);
}
