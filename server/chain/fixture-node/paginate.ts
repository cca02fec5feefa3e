import { status as Status } from '@grpc/grpc-js';
import type {
  PageRequest,
  PageResponse,
} from '../../../generated/proto/cosmos/base/query/v1beta1/pagination.js';
import { ChainError } from '../chain-error.js';

/** Page size when the request gives none (Cosmos `query.DefaultLimit`); the total is then counted too. */
const DEFAULT_LIMIT = 100n;

/** Message of the InvalidArgument answered when a request gives both `offset` and `key`. */
export const OFFSET_AND_KEY_MESSAGE = 'invalid request, either offset or key is expected, got both';

/**
 * Cosmos SDK `query.Paginate` over entries in store key order (keys as UTF-8 bytes): by `key` (from that
 * key on, no total) or by `offset` (with `total` when `count_total`, or when `limit` is 0 and defaults to
 * 100); `reverse` walks backwards (by key: from that key down); `next_key` is the key of the first entry
 * after the page, empty on the last page.
 */
export function paginate<T>(
  entries: ReadonlyMap<string, T>,
  request: PageRequest | undefined,
): { items: T[]; pagination: PageResponse } {
  const offset = BigInt(request?.offset ?? '0');
  const key = request?.key ?? Buffer.alloc(0);
  let limit = BigInt(request?.limit ?? '0');
  let countTotal = request?.count_total ?? false;
  if (offset > 0n && key.length > 0) throw new ChainError(Status.INVALID_ARGUMENT, OFFSET_AND_KEY_MESSAGE);
  if (limit === 0n) {
    limit = DEFAULT_LIMIT;
    countTotal = true;
  }
  let ordered = [...entries.entries()].map(([k, v]) => ({ key: Buffer.from(k, 'utf8'), value: v }));
  if (request?.reverse) ordered = ordered.reverse();

  if (key.length > 0) {
    const start = ordered.findIndex((e) =>
      request?.reverse ? Buffer.compare(e.key, key) <= 0 : Buffer.compare(e.key, key) >= 0,
    );
    const from = start < 0 ? ordered.length : start;
    const page = ordered.slice(from, from + Number(limit));
    const next = ordered[from + Number(limit)];
    return {
      items: page.map((e) => e.value),
      pagination: { next_key: next?.key ?? Buffer.alloc(0), total: '0' },
    };
  }

  const end = offset + limit;
  const page = ordered.slice(Number(offset), Number(end));
  const next = BigInt(ordered.length) > end ? ordered[Number(end)] : undefined;
  return {
    items: page.map((e) => e.value),
    pagination: {
      next_key: next?.key ?? Buffer.alloc(0),
      total: countTotal ? String(ordered.length) : '0',
    },
  };
}
