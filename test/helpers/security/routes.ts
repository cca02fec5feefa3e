import { creditsContract } from '../../../contracts/credits.js';
import { memoryContract } from '../../../contracts/memory.js';
import { oracleContract } from '../../../contracts/oracle.js';
import { preferencesContract } from '../../../contracts/preferences.js';

/** Every route of the agent service and its plugins, by `<contract>.<route>`, as the contracts declare them. */
export const ORACLE_ROUTES = {
  ...prefixed('oracle', oracleContract),
  ...prefixed('preferences', preferencesContract),
  ...prefixed('memory', memoryContract),
  ...prefixed('credits', creditsContract),
};

export type RouteKey = keyof typeof ORACLE_ROUTES;

function prefixed<
  P extends string,
  C extends Record<string, { method: string; path: string; metadata?: unknown }>,
>(prefix: P, contract: C): { [K in keyof C & string as `${P}.${K}`]: C[K] } {
  return Object.fromEntries(Object.entries(contract).map(([k, v]) => [`${prefix}.${k}`, v])) as never;
}

/** Whether a route needs a capability token (its metadata says `auth: 'ucan'`). */
export function isAuthenticated(key: RouteKey): boolean {
  return (ORACLE_ROUTES[key].metadata as { auth?: string } | undefined)?.auth === 'ucan';
}

/** The ids a request fills a route's path with. */
export interface Ids {
  sessionId: string;
  runId: string;
  roomId: string;
  memberDid: string;
  memoryId: string;
  /** A tool call waiting for approval (none of the tests' users has one: an unknown id by default). */
  toolCallId?: string;
}

/** A request for a route: its path filled with `ids`, and a body when the route takes one. */
export interface RouteRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** A well-formed request for each route (`ids` name the resources it touches). */
export function requestFor(key: RouteKey, ids: Ids): RouteRequest {
  const route = ORACLE_ROUTES[key];
  const path = route.path
    .replace(':sessionId', encodeURIComponent(ids.sessionId))
    .replace(':runId', encodeURIComponent(ids.runId))
    .replace(':roomId', encodeURIComponent(ids.roomId))
    .replace(':memberDid', encodeURIComponent(ids.memberDid))
    .replace(':memoryId', encodeURIComponent(ids.memoryId))
    .replace(
      ':toolCallId',
      encodeURIComponent(ids.toolCallId ?? 'call_00000000-0000-4000-8000-000000000000'),
    );
  const query = key === 'preferences.get' ? `?roomId=${encodeURIComponent(ids.roomId)}` : '';
  const body = BODIES[key]?.(ids);
  return { method: route.method, path: path + query, ...(body === undefined ? {} : { body }) };
}

/** Bodies of the routes that take one (the others send none). */
const BODIES: Partial<Record<RouteKey, (ids: Ids) => unknown>> = {
  'oracle.createSession': (ids) => ({ roomId: ids.roomId }),
  'oracle.abort': (ids) => ({ sessionId: ids.sessionId }),
  'oracle.decideToolApproval': () => ({ approved: true }),
  'oracle.send': (ids) => ({ message: 'hello', metadata: { roomId: ids.roomId } }),
  'oracle.createRoom': () => ({ name: 'a room' }),
  'oracle.storeDelegation': () => ({ serialized: 'placeholder', expiresAt: Date.now() + 60_000 }),
  'memory.remember': () => ({ content: 'I grow maize.' }),
  'credits.pay': () => ({ txHash: 'AB'.repeat(32), amount: { denom: 'uixo', amount: '1000' } }),
};
