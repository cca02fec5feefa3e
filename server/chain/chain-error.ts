import { status as Status } from '@grpc/grpc-js';
import type { CosmosError } from '../../contracts/chain.js';
import { errorKindOf, type ErrorKind } from '../http/error-kind.js';
import { HTTP_STATUS_FROM_GRPC } from './http-status.js';

/** Message of the Cosmos gateway for an unknown URI, a wrong method, or a method that is not served. */
const NOT_IMPLEMENTED_MESSAGE = 'Not Implemented';

/**
 * The one error type of the chain gateway: a gRPC status code and message, answered as the Cosmos error
 * body `{code, message, details}` with the HTTP status of {@link HTTP_STATUS_FROM_GRPC}.
 */
export class ChainError extends Error {
  override name = 'ChainError';

  constructor(
    readonly code: Status,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** HTTP status for this error. */
  get httpStatus(): number {
    return HTTP_STATUS_FROM_GRPC[this.code];
  }

  /** The response body. */
  toBody(): CosmosError {
    return { code: this.code, message: this.message, details: [] };
  }

  /** Unknown route, wrong method or disabled method: 501 `{"code":12,"message":"Not Implemented"}`. */
  static notImplemented(): ChainError {
    return new ChainError(Status.UNIMPLEMENTED, NOT_IMPLEMENTED_MESSAGE);
  }

  /**
   * Normalises anything thrown while serving a request, keeping it as `cause`. A grpc-js ServiceError keeps
   * its code and the node's message, except that messages grpc-js writes itself about the transport
   * (addresses, "Last error: …") are replaced, so no internal address reaches a client. Anything else is
   * answered by its kind: InvalidArgument, Unavailable or Internal.
   */
  static from(err: unknown): ChainError {
    if (err instanceof ChainError) return err;
    if (isServiceError(err)) {
      const code = err.code in HTTP_STATUS_FROM_GRPC ? err.code : Status.UNKNOWN;
      return new ChainError(code, publicMessage(code, err.details ?? err.message), { cause: err });
    }
    const [code, message] = STATUS_OF_KIND[errorKindOf(err)];
    return new ChainError(code, message, { cause: err });
  }
}

/** The status and message of an error that is not the node's, by its kind (server/http/error-kind.ts). */
const STATUS_OF_KIND: Readonly<Record<ErrorKind, [Status, string]>> = {
  client_error: [Status.INVALID_ARGUMENT, 'invalid request'],
  dependency_down: [Status.UNAVAILABLE, 'dependency unavailable'],
  internal: [Status.INTERNAL, 'internal error'],
};

interface ServiceErrorLike {
  code: Status;
  details?: string;
  message: string;
}

function isServiceError(err: unknown): err is ServiceErrorLike {
  return (
    err instanceof Error && typeof (err as Partial<ServiceErrorLike>).code === 'number' && 'metadata' in err
  );
}

/** Transport failures described by grpc-js itself rather than by the node. */
const TRANSPORT_DETAIL =
  /Last error|ECONN|EHOSTUNREACH|ENOTFOUND|\d+\.\d+\.\d+\.\d+:\d+|remote_addr|\[[0-9a-f:]+\]:\d+/i;

function publicMessage(code: Status, message: string): string {
  if (code === Status.DEADLINE_EXCEEDED && /^Deadline exceeded/.test(message)) return 'Deadline exceeded';
  if (code === Status.UNAVAILABLE && TRANSPORT_DETAIL.test(message)) return 'chain node unavailable';
  if (TRANSPORT_DETAIL.test(message)) return Status[code];
  return message;
}
