import { status as Status } from '@grpc/grpc-js';

/**
 * gRPC status → HTTP status, exactly as grpc-gateway v1.16 `HTTPStatusFromCode` maps them (the table in
 * shared/facts/chain-rest-conventions.md §3.3). Exhaustive: a new code fails to compile until mapped.
 */
export const HTTP_STATUS_FROM_GRPC: Readonly<Record<Status, number>> = {
  [Status.OK]: 200,
  [Status.CANCELLED]: 408,
  [Status.UNKNOWN]: 500,
  [Status.INVALID_ARGUMENT]: 400,
  [Status.DEADLINE_EXCEEDED]: 504,
  [Status.NOT_FOUND]: 404,
  [Status.ALREADY_EXISTS]: 409,
  [Status.PERMISSION_DENIED]: 403,
  [Status.RESOURCE_EXHAUSTED]: 429,
  [Status.FAILED_PRECONDITION]: 400,
  [Status.ABORTED]: 409,
  [Status.OUT_OF_RANGE]: 400,
  [Status.UNIMPLEMENTED]: 501,
  [Status.INTERNAL]: 500,
  [Status.UNAVAILABLE]: 503,
  [Status.DATA_LOSS]: 500,
  [Status.UNAUTHENTICATED]: 401,
};
