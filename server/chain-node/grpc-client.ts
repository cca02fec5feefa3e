import { Client, credentials, Metadata, type ChannelOptions, type ServiceError } from '@grpc/grpc-js';
import type { MethodBinding } from './grpc-methods.js';

/** Header (and gRPC metadata key) selecting the block height of a query; the node echoes it back. */
export const BLOCK_HEIGHT_HEADER = 'x-cosmos-block-height';

/** Options of one call. */
export interface CallOptions {
  /** Deadline of the call, from now. */
  timeoutMs: number;
  /** Forwarded as `x-cosmos-block-height` metadata. */
  blockHeight?: string | undefined;
}

/** A decoded response and the block height the node answered for, when it said. */
export interface CallResult {
  response: unknown;
  blockHeight: string | undefined;
}

/** How a call ends: the grpc-js ServiceError, or the decoded response and the block height the node said. */
export type UnaryCallback = (
  err: ServiceError | null,
  response: unknown,
  blockHeight: string | undefined,
) => void;

/** Calls the chain's query methods over one long-lived channel. */
export interface ChainGrpcClient {
  /** Calls `method` (as the route table bound it). Rejects with the grpc-js ServiceError of a failed call. */
  call(method: MethodBinding, request: unknown, options: CallOptions): Promise<CallResult>;
  /**
   * The same call with a callback, called once: the gateway's hot path, straight onto grpc-js's own
   * callback with no promise in between.
   */
  unary(method: MethodBinding, request: unknown, options: CallOptions, callback: UnaryCallback): void;
  close(): void;
}

/** Where the node is: `host:port`, optionally with `http://` or `https://` (which implies TLS). */
export interface ChainGrpcTarget {
  url: string;
  tls?: boolean;
}

// Reconnect quickly after a node restart (grpc-js defaults back off up to 120 s). No channelz: its per-call
// counters and call tracking cost CPU on every call, for an introspection service the gateway never serves.
const CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.enable_channelz': 0,
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 5000,
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
};

/** Opens the gateway's single grpc-js channel to the node; it connects lazily and reconnects by itself. */
export function createChainGrpcClient(target: ChainGrpcTarget): ChainGrpcClient {
  const scheme = /^(https?):\/\//i.exec(target.url)?.[1]?.toLowerCase();
  const address = target.url.replace(/^https?:\/\//i, '').replace(/\/+$/, '');
  const tls = target.tls === true || scheme === 'https';
  const client = new Client(
    address,
    tls ? credentials.createSsl() : credentials.createInsecure(),
    CHANNEL_OPTIONS,
  );

  const unary: ChainGrpcClient['unary'] = ({ definition }, request, options, callback) => {
    const metadata = new Metadata();
    if (options.blockHeight !== undefined) metadata.set(BLOCK_HEIGHT_HEADER, options.blockHeight);
    let blockHeight: string | undefined;
    const call = client.makeUnaryRequest(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      request,
      metadata,
      { deadline: Date.now() + options.timeoutMs },
      (err, response) => callback(err, response, blockHeight),
    );
    call.on('metadata', (md: Metadata) => {
      const value = md.get(BLOCK_HEIGHT_HEADER)[0];
      if (typeof value === 'string') blockHeight = value;
    });
  };

  return {
    unary,
    call(method, request, options) {
      return new Promise<CallResult>((resolve, reject) => {
        unary(method, request, options, (err, response, blockHeight) =>
          err ? reject(err) : resolve({ response, blockHeight }),
        );
      });
    },
    close() {
      client.close();
    },
  };
}
