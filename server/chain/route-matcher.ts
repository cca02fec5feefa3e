import type { ChainRouteBinding } from './route-table.js';

/** A route that matched a path, with its decoded path parameters. */
export interface RouteMatch {
  binding: ChainRouteBinding;
  params: Record<string, string>;
}

/** Thrown for a path segment that is not valid percent-encoding (answered as 400, code 3). */
export class MalformedPathError extends Error {
  override name = 'MalformedPathError';
}

type Segment = { literal: string } | { param: string };

/**
 * Matches the part of a request path after the chain prefix (`/entity/did:ixo:entity:abc`) against the
 * route table, first match wins (the table is ordered most specific first). Case-sensitive and strict: a
 * trailing slash or an empty parameter matches nothing, as in the Cosmos gateway. One pass over a few
 * dozen precompiled routes instead of Express's regular-expression layers, on the hot path.
 */
export function createRouteMatcher(
  bindings: readonly ChainRouteBinding[],
): (path: string) => RouteMatch | undefined {
  const compiled = bindings.map((binding) => ({
    binding,
    segments: binding.suffix
      .split('/')
      .slice(1)
      .map((s): Segment => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s })),
  }));
  return (path) => {
    // parts[0] is the empty text before the leading slash; segment i is parts[i + 1].
    const parts = path.split('/');
    for (const { binding, segments } of compiled) {
      if (segments.length !== parts.length - 1) continue;
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const seg = segments[i];
        const part = parts[i + 1] ?? '';
        ok = seg !== undefined && ('literal' in seg ? seg.literal === part : part !== '');
      }
      if (!ok) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < segments.length; i++) {
        const seg = segments[i];
        if (seg !== undefined && 'param' in seg) params[seg.param] = decode(parts[i + 1] ?? '');
      }
      return { binding, params };
    }
    return undefined;
  };
}

function decode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch (err) {
    throw new MalformedPathError('malformed request path or query', { cause: err });
  }
}
