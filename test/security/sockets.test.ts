// The socket channel as the wrong user: the handshake of another user's session, or of a session whose room the
// caller no longer belongs to, is refused like an unknown session (connect_error 404); results a wrong user's
// socket sends for another user's browser tool or action are ignored; bad tokens are refused with their code.
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintUserTokens } from '../../server/oracle/auth/mint.js';
import { openTestDb } from '../helpers/db.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../helpers/redis.js';
import { connectSocket, type TestSocket } from '../helpers/oracle/socket-client.js';
import { newUser, oracleApi, type OracleUser } from '../helpers/oracle/oracle-client.js';
import { newOracleKey, startOracleApp, type OracleApp } from '../helpers/oracle/oracle-app.js';

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

/** Resolves with the reason when the socket is disconnected, or with `'still connected'` after `ms`. */
function disconnectedWithin(tab: TestSocket, ms: number): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still connected'), ms);
    tab.socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

/** A room of `owner` with `member` in it, and a session of the member's in that room. */
async function memberSession(url: string, owner: OracleUser, member: OracleUser) {
  const api = oracleApi(url, owner);
  const room = (await api.call('POST', '/rooms', {})).body as { roomId: string };
  await api.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(member.did)}`);
  const session = (await oracleApi(url, member).call('POST', '/sessions', { roomId: room.roomId })).body as {
    sessionId: string;
  };
  return { roomId: room.roomId, sessionId: session.sessionId };
}

describe("a removed member's open sockets (issue 36 item 5)", () => {
  it("a member removed from a room has that room's open sockets disconnected at once; their other sockets stay", async () => {
    const [owner, member] = await Promise.all([newUser(app.oracleDid), newUser(app.oracleDid)]);
    const inRoom = await memberSession(app.url, owner, member);
    const other = await memberSession(app.url, owner, member);
    const own = await oracleApi(app.url, member).createSession();
    const tabs = await Promise.all([
      connectSocket(app.url, member, inRoom.sessionId),
      connectSocket(app.url, member, inRoom.sessionId),
      connectSocket(app.url, member, other.sessionId),
      connectSocket(app.url, member, own.sessionId),
    ]);
    const ownerTab = await connectSocket(
      app.url,
      owner,
      (await oracleApi(app.url, owner).call('POST', '/sessions', { roomId: inRoom.roomId })).body.sessionId,
    );
    try {
      const gone = tabs.map((t) => disconnectedWithin(t, 1500));
      const ownerGone = disconnectedWithin(ownerTab, 1500);
      const removed = await oracleApi(app.url, owner).call(
        'DELETE',
        `/rooms/${inRoom.roomId}/members/${encodeURIComponent(member.did)}`,
      );
      expect(removed.status).toBe(200);
      expect(await Promise.all([...gone, ownerGone])).toEqual([
        'io server disconnect',
        'io server disconnect',
        'still connected',
        'still connected',
        'still connected',
      ]);
    } finally {
      for (const t of [...tabs, ownerTab]) t.close();
    }
  });

  it('a member who leaves the room has its sockets disconnected too', async () => {
    const [owner, member] = await Promise.all([newUser(app.oracleDid), newUser(app.oracleDid)]);
    const { roomId, sessionId } = await memberSession(app.url, owner, member);
    const tab = await connectSocket(app.url, member, sessionId);
    try {
      const gone = disconnectedWithin(tab, 1500);
      await oracleApi(app.url, member).call(
        'DELETE',
        `/rooms/${roomId}/members/${encodeURIComponent(member.did)}`,
      );
      expect(await gone).toBe('io server disconnect');
    } finally {
      tab.close();
    }
  });

  it.runIf(TEST_REDIS_URL)(
    'the removal on one instance disconnects the socket held by another (Redis adapter)',
    async () => {
      await using db = await openTestDb();
      const signingKey = await newOracleKey();
      const env = { REDIS_URL: TEST_REDIS_URL ?? '' };
      const redisPrefix = testRedisPrefix();
      await using one = await startOracleApp({ db, signingKey, env, redisPrefix });
      await using two = await startOracleApp({ db, signingKey, env, redisPrefix });
      const [owner, member] = await Promise.all([newUser(one.oracleDid), newUser(one.oracleDid)]);
      const { roomId, sessionId } = await memberSession(one.url, owner, member);
      const tab = await connectSocket(one.url, member, sessionId);
      try {
        const gone = disconnectedWithin(tab, 3000);
        const removed = await oracleApi(two.url, owner).call(
          'DELETE',
          `/rooms/${roomId}/members/${encodeURIComponent(member.did)}`,
        );
        expect(removed.status).toBe(200);
        expect(await gone).toBe('io server disconnect');
      } finally {
        tab.close();
      }
    },
  );
});
