import { status as Status } from '@grpc/grpc-js';
import type { z, ZodTypeAny } from 'zod';
import type { PaginationQuery } from '../../contracts/chain.js';
import { formatZodIssues } from '../http/zod-issues.js';
import { ChainError } from './chain-error.js';
import type { MethodBinding } from '../chain-node/grpc-methods.js';
import { fromRestJson } from './rest-json-read.js';

const TRUE = new Set(['true', 'True', 'TRUE', 't', 'T', '1']);

/**
 * Parses a path, query or header object with the contract's schema, once; a failure is InvalidArgument
 * (400, code 3) naming the first bad key, e.g. `pagination.limit: must be an unsigned 64-bit integer`.
 */
export function parseInput<S extends ZodTypeAny>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data as z.output<S>;
  const message = formatZodIssues(parsed.error.issues, { limit: 1 });
  throw new ChainError(Status.INVALID_ARGUMENT, message || 'invalid request');
}

/**
 * Builds the gRPC request the way grpc-gateway populates it: path parameters fill the request fields of
 * the same name, and the flat `pagination.*` query keys (already parsed) fill `pagination`, left unset
 * when none is given.
 */
export function buildRequest(
  method: MethodBinding,
  params: Readonly<Record<string, string>>,
  query: PaginationQuery,
): unknown {
  const json: Record<string, unknown> = { ...params };
  const pagination = paginationJson(query);
  if (pagination) json['pagination'] = pagination;
  return fromRestJson(method.input, json);
}

function paginationJson(q: PaginationQuery): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const key = q['pagination.key'];
  if (key !== undefined) out['key'] = key;
  if (q['pagination.offset'] !== undefined) out['offset'] = q['pagination.offset'];
  if (q['pagination.limit'] !== undefined) out['limit'] = q['pagination.limit'];
  const countTotal = q['pagination.count_total'] ?? q['pagination.countTotal'];
  if (countTotal !== undefined) out['count_total'] = TRUE.has(countTotal);
  if (q['pagination.reverse'] !== undefined) out['reverse'] = TRUE.has(q['pagination.reverse']);
  return Object.keys(out).length > 0 ? out : undefined;
}
