import type { Signer } from '@ucanto/interface';
import { ed25519 } from '@ucanto/principal';
import { expect } from 'vitest';
import type { ChatSession } from '../../../contracts/oracle.js';
import { mintUserTokens, type MintedToken } from '../../../server/oracle/auth/mint.js';
import { readSse, type SseEvent } from './sse.js';

/** An answer body as tests read it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** A user of the oracle under test, with their tokens. */
export interface OracleUser {
  signer: Signer;
  did: string;
  invocation: MintedToken;
  delegation: MintedToken;
  /** Headers of an authenticated request (invocation + delegation). */
  headers: Record<string, string>;
}

/** A new user with fresh tokens addressed to `oracleDid`. */
export async function newUser(oracleDid: string, signer?: Signer): Promise<OracleUser> {
  const user = signer ?? (await ed25519.generate());
  const tokens = await mintUserTokens(user, oracleDid as `did:${string}:${string}`);
  return {
    signer: user,
    did: tokens.userDid,
    invocation: tokens.invocation,
    delegation: tokens.delegation,
    headers: {
      authorization: `Bearer ${tokens.invocation.serialized}`,
      'x-auth-type': 'ucan',
      'x-ucan-delegation': tokens.delegation.serialized,
    },
  };
}

/** A small client of the oracle's HTTP API over real fetch, for tests. */
export function oracleApi(baseUrl: string, user: OracleUser) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...user.headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    // Tests read answers loosely; the contract tests pin their shapes.
    const json: Json = text ? JSON.parse(text) : undefined;
    return { status: response.status, headers: response.headers, body: json };
  };
  return {
    call,
    async createSession(): Promise<ChatSession> {
      const r = await call('POST', '/sessions', {});
      expect(r.status).toBe(201);
      return r.body as ChatSession;
    },
    /** Sends a streamed message; reads the whole stream (or until `onEvent` says stop). */
    async stream(
      sessionId: string,
      body: Record<string, unknown>,
      onEvent?: (event: SseEvent, all: SseEvent[]) => boolean | void,
      onComment?: (comment: string) => boolean | void,
    ) {
      const response = await fetch(`${baseUrl}/messages/${sessionId}`, {
        method: 'POST',
        headers: { ...user.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ stream: true, ...body }),
      });
      if (!response.ok || !response.body) {
        return {
          response,
          events: [] as SseEvent[],
          comments: [] as string[],
          stoppedEarly: false,
          raw: '',
          dropped: false,
        };
      }
      return { response, ...(await readSse(response.body, onEvent, onComment)) };
    },
    /** Re-joins a run after event `after`. */
    async rejoin(runId: string, after: number, headers: Record<string, string> = {}) {
      const response = await fetch(`${baseUrl}/runs/${runId}?after=${after}`, {
        headers: { ...user.headers, ...headers },
      });
      if (!response.ok || !response.body) return { response, events: [] as SseEvent[] };
      return { response, ...(await readSse(response.body)) };
    },
  };
}
