import type { creditsContract } from '../../../contracts/credits.js';
import type { memoryContract } from '../../../contracts/memory.js';
import type { AUTH_HEADERS as ContractAuthHeaders, oracleContract } from '../../../contracts/oracle.js';
import type { preferencesContract } from '../../../contracts/preferences.js';

/**
 * The routes of the contracts this library calls, as method + path + auth: the contracts' zod schemas stay
 * out of the bundle (they would be a third of it), while `satisfies` holds every entry to its contract route
 * (a path or method that drifts does not compile) and the cast gives calls the contract's own types.
 */
type Shape<C> = {
  [K in keyof C]?: C[K] extends { method: infer M; path: infer P }
    ? { method: M; path: P; metadata?: unknown }
    : never;
};

const ucan = { auth: 'ucan' } as const;
const open = { auth: 'public' } as const;

const oracle = {
  models: { method: 'GET', path: '/models', metadata: open },
  createSession: { method: 'POST', path: '/sessions', metadata: ucan },
  listSessions: { method: 'GET', path: '/sessions', metadata: ucan },
  deleteSession: { method: 'DELETE', path: '/sessions/:sessionId', metadata: ucan },
  transcript: { method: 'GET', path: '/sessions/:sessionId/messages', metadata: ucan },
  currentRun: { method: 'GET', path: '/sessions/:sessionId/run', metadata: ucan },
  decideToolApproval: {
    method: 'POST',
    path: '/sessions/:sessionId/tool-approvals/:toolCallId',
    metadata: ucan,
  },
  abort: { method: 'POST', path: '/messages/abort', metadata: ucan },
  history: { method: 'GET', path: '/messages/:sessionId', metadata: ucan },
  send: { method: 'POST', path: '/messages/:sessionId', metadata: ucan },
  rejoinRun: { method: 'GET', path: '/runs/:runId', metadata: ucan },
} as const satisfies Shape<typeof oracleContract>;

const credits = {
  account: { method: 'GET', path: '/credits', metadata: ucan },
  pay: { method: 'POST', path: '/credits/payments', metadata: ucan },
} as const satisfies Shape<typeof creditsContract>;

const memory = {
  list: { method: 'GET', path: '/memory', metadata: ucan },
  remember: { method: 'POST', path: '/memory', metadata: ucan },
  forget: { method: 'DELETE', path: '/memory/:memoryId', metadata: ucan },
} as const satisfies Shape<typeof memoryContract>;

const preferences = {
  get: { method: 'GET', path: '/user-preferences', metadata: ucan },
} as const satisfies Shape<typeof preferencesContract>;

export const oracleRoutes = oracle as unknown as Pick<typeof oracleContract, keyof typeof oracle>;
export const creditsRoutes = credits as unknown as Pick<typeof creditsContract, keyof typeof credits>;
export const memoryRoutes = memory as unknown as Pick<typeof memoryContract, keyof typeof memory>;
export const preferencesRoutes = preferences as unknown as Pick<
  typeof preferencesContract,
  keyof typeof preferences
>;

/** The auth headers' names (contracts/oracle.ts `AUTH_HEADERS`). */
export const AUTH_HEADERS = {
  invocation: 'authorization',
  authType: 'x-auth-type',
  delegation: 'x-ucan-delegation',
} as const satisfies typeof ContractAuthHeaders;
