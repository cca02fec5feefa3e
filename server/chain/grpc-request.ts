import { status as Status } from '@grpc/grpc-js';
import type { ZodTypeAny } from 'zod';
import { PaginationQuery } from '../../contracts/chain.js';
import { ChainError } from './chain-error.js';
import type { MethodBinding } from './grpc-methods.js';
import { fromRestJson } from './rest-json-read.js';

const TRUE = new Set(['true', 'True', 'TRUE', 't', 'T', '1']);

/**
 * Validates a path or query object against the contract's schema; a failure is InvalidArgument (400,
 * code 3) naming the first bad key, e.g. `pagination.limit: must be an unsigned 64-bit integer`.
 */
export function validateInput(schema: unknown, value: unknown): Record<string, string> {
  if (!isZod(schema)) return {};
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data as Record<string, string>;
  const issue = parsed.error.issues[0];
  const where = issue?.path.join('.') ?? '';
  throw new ChainError(
    Status.INVALID_ARGUMENT,
    `${where ? `${where}: ` : ''}${issue?.message ?? 'invalid request'}`,
  );
}

/**
 * Builds the gRPC request the way grpc-gateway populates it: path parameters fill the request fields of
 * the same name, and the flat `pagination.*` query keys fill `pagination` (left unset when none is given).
 */
export function buildRequest(
  binding: MethodBinding,
  params: Record<string, string>,
  query: Record<string, string>,
): unknown {
  const json: Record<string, unknown> = { ...params };
  const pagination = paginationJson(PaginationQuery.parse(query));
  if (pagination) json['pagination'] = pagination;
  return fromRestJson(binding.input, json);
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

function isZod(schema: unknown): schema is ZodTypeAny {
  return typeof (schema as ZodTypeAny | undefined)?.safeParse === 'function';
}
