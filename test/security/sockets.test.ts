// The socket channel as the wrong user: the handshake of another user's session, or of a session whose room the
// caller no longer belongs to, is refused like an unknown session (connect_error 404); results a wrong user's
// socket sends for another user's browser tool or action are ignored; bad tokens are refused with their code.
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintUserTokens } from '../../server/oracle/auth/mint.js';
import { connectSocket } from '../oracle/helpers/socket-client.js';
import { newUser, oracleApi, type OracleUser } from '../oracle/helpers/oracle-client.js';
import { startOracleApp, type OracleApp } from '../oracle/helpers/oracle-app.js';

let app: OracleApp;
let a: OracleUser;
let b: OracleUser;

beforeAll(async () => {
  app = await startOracleApp({ env: { ORACLE_TOOL_TIMEOUT_MS: '1500' } });
  [a, b] = await Promise.all([newUser(app.oracleDid), newUser(app.oracleDid)]);
});
afterAll(() => app.close());

/** The handshake's refusal: `connect_error` data, or `connected` when it is accepted. */
function handshake(
  auth: { invocation?: string; ucanDelegation?: string },
  query: Record<string, string>,
): Promise<{ connected: boolean; data?: unknown; message?: string }> {
  return new Promise((resolve) => {
    const socket = connect(app.url, { transports: ['websocket'], auth, query, reconnection: false });
    socket.once('connected', () => {
      socket.close();
      resolve({ connected: true });
    });
    socket.once('connect_error', (err: Error & { data?: unknown }) => {
      socket.close();
      resolve({ connected: false, data: err.data, message: err.message });
    });
  });
}

const tokensOf = (u: OracleUser) => ({
  invocation: u.invocation.serialized,
  ucanDelegation: u.delegation.serialized,
});

const READ_NOTE = {
  name: 'read_note',
  description: 'Reads the note on the page',
  schema: { type: 'object', properties: {} },
};

describe('the socket as the wrong user', () => {
  it("B's handshake for A's session is refused exactly as for a session that does not exist", async () => {
    const session = await oracleApi(app.url, a).createSession();
    const other = await handshake(tokensOf(b), { sessionId: session.sessionId, userDid: b.did });
    const unknown = await handshake(tokensOf(b), {
      sessionId: '00000000-0000-4000-8000-000000000000',
      userDid: b.did,
    });
    expect(other).toEqual({
      connected: false,
      data: { code: 'session_not_found', statusCode: 404 },
      message: 'Chat session not found.',
    });
    expect(unknown).toEqual(other);
    // Naming A as the user with B's tokens does not help.
    expect(await handshake(tokensOf(b), { sessionId: session.sessionId, userDid: a.did })).toMatchObject({
      connected: false,
      data: { code: 'auth_issuer_mismatch', statusCode: 401 },
    });
    expect((await handshake(tokensOf(a), { sessionId: session.sessionId, userDid: a.did })).connected).toBe(
      true,
    );
  });

  it('expired and wrong-audience tokens are refused in the handshake with their code', async () => {
    const session = await oracleApi(app.url, a).createSession();
    const expired = await mintUserTokens(a.signer, app.oracleDid as `did:${string}:${string}`, -5);
    expect(
      await handshake(
        { invocation: expired.invocation.serialized, ucanDelegation: expired.delegation.serialized },
        { sessionId: session.sessionId, userDid: a.did },
      ),
    ).toMatchObject({ connected: false, data: { code: 'auth_expired', statusCode: 401 } });
    const elsewhere = await mintUserTokens(a.signer, b.did as `did:${string}:${string}`);
    expect(
      await handshake(
        { invocation: elsewhere.invocation.serialized, ucanDelegation: elsewhere.delegation.serialized },
        { sessionId: session.sessionId, userDid: a.did },
      ),
    ).toMatchObject({ connected: false, data: { code: 'auth_wrong_audience', statusCode: 401 } });
  });

  it("a member removed from a room loses the socket of the room's sessions (404, as an unknown room)", async () => {
    const owner = oracleApi(app.url, a);
    const room = (await owner.call('POST', '/rooms', {})).body as { roomId: string };
    await owner.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(b.did)}`);
    const session = (await oracleApi(app.url, b).call('POST', '/sessions', { roomId: room.roomId })).body as {
      sessionId: string;
    };
    const query = { sessionId: session.sessionId, userDid: b.did };
    expect((await handshake(tokensOf(b), query)).connected).toBe(true);
    await owner.call('DELETE', `/rooms/${room.roomId}/members/${encodeURIComponent(b.did)}`);
    expect(await handshake(tokensOf(b), query)).toEqual({
      connected: false,
      data: { code: 'room_not_found', statusCode: 404 },
      message: 'Room not found.',
    });
  });

  it("results B's socket sends for A's browser tool and action are ignored; A's own result is used", async () => {
    const api = oracleApi(app.url, a);
    const session = await api.createSession();
    const tab = await connectSocket(app.url, a, session.sessionId);
    const intruderSession = await oracleApi(app.url, b).createSession();
    const intruder = await connectSocket(app.url, b, intruderSession.sessionId);
    tab.socket.on('browser_tool_call', (call: { toolCallId: string }) => {
      // B learnt the id somehow and answers first, for A's session too; then A's tab answers.
      intruder.socket.emit('tool_result', { toolCallId: call.toolCallId, result: 'forged by B' });
      intruder.socket.emit('action_call_result', {
        toolCallId: call.toolCallId,
        sessionId: session.sessionId,
        result: 'forged by B',
      });
      setTimeout(
        () => tab.socket.emit('tool_result', { toolCallId: call.toolCallId, result: 'A wrote this' }),
        200,
      );
    });
    try {
      const { events } = await api.stream(session.sessionId, {
        message: 'use read_note',
        tools: [READ_NOTE],
      });
      expect(intruder.received.some((r) => r.event === 'browser_tool_call')).toBe(false);
      const done = events.filter((e) => e.event === 'tool_call').at(-1)?.data as Record<string, unknown>;
      expect(done).toMatchObject({ status: 'done', output: 'A wrote this' });
    } finally {
      tab.close();
      intruder.close();
    }
  });
});
