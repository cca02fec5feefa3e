import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * V8 gives an object whose prototype was changed a hidden class of its own as soon as a property is added to it
 * afterwards, with its own copy of the descriptors (about 1 KB for a request or a response, and one more copy
 * per property added). Express changes the prototype of both (its `init` middleware), then it, the body parser
 * and ts-rest add these: made own properties first (same values: the inherited one, or undefined), every request
 * and response keeps to hidden classes shared by all, and an open stream does not hold two copies of its own.
 */
const REQUEST_LATE = ['_eventsCount', 'body', '_body', 'length', 'route', 'tsRestRoute'] as const;
const RESPONSE_LATE = ['locals', 'statusCode', 'statusMessage'] as const;

export function shapeForExpress(req: IncomingMessage, res: ServerResponse): void {
  ownAll(req as unknown as Record<string, unknown>, REQUEST_LATE);
  ownAll(res as unknown as Record<string, unknown>, RESPONSE_LATE);
}

/** Makes each of `names` an own property of `target`, with the value it reads now. */
function ownAll(target: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    if (Object.hasOwn(target, name)) continue;
    const value = target[name];
    target[name] = value;
  }
}
