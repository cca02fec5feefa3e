import { Client, credentials, Metadata, type ChannelOptions } from '@grpc/grpc-js';
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

/** Calls the chain's query methods over one long-lived channel. */
export interface ChainGrpcClient {
  /** Calls `method` (as the route table bound it). Rejects with the grpc-js ServiceError of a failed call. */
  call(method: MethodBinding, request: unknown, options: CallOptions): Promise<CallResult>;
  close(): void;
}

/** Where the node is: `host:port`, optionally with `http://` or `https://` (which implies TLS). */
export interface ChainGrpcTarget {
  url: string;
  tls?: boolean;
}

// Reconnect quickly after a node restart (grpc-js defaults back off up to 120 s).
const CHANNEL_OPTIONS: ChannelOptions = {
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

  return {
    call({ definition }, request, options) {
      const metadata = new Metadata();
      if (options.blockHeight !== undefined) metadata.set(BLOCK_HEIGHT_HEADER, options.blockHeight);
      return new Promise<CallResult>((resolve, reject) => {
        let blockHeight: string | undefined;
        const call = client.makeUnaryRequest(
          definition.path,
          (value: unknown) => definition.requestSerialize(value),
          (bytes: Buffer) => definition.responseDeserialize(bytes),
          request,
          metadata,
          { deadline: Date.now() + options.timeoutMs },
          (err, response) => (err ? reject(err) : resolve({ response, blockHeight })),
        );
        call.on('metadata', (md: Metadata) => {
          const value = md.get(BLOCK_HEIGHT_HEADER)[0];
          if (typeof value === 'string') blockHeight = value;
        });
      });
    },
    close() {
      client.close();
    },
  };
}
