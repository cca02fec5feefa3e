// Two users, A (the owner) and B (anyone else), on every route of the agent service and its plugins: a route
// that names a session, run, room, member or memory answers B exactly as it answers a thing that does not exist
// (the same 404 JSON), and writes nothing; routes that list or create show B only B's own things. The table
// below classifies every route of the contracts: a new route fails this file until it is classified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, oracleApi, type OracleUser } from '../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../helpers/oracle/oracle-app.js';
import { ORACLE_ROUTES, requestFor, type Ids, type RouteKey } from '../helpers/security/routes.js';

/** How a route treats the resources it names. */
type Kind =
  /** No token needed: the same for everyone. */
  | 'public'
  /** Names a resource: B on A's gets the 404 of an unknown one. */
  | 'scoped'
  /** Acts on the caller's own things only (lists, creations): B never sees A's. */
  | 'own';

const KINDS: Record<RouteKey, Kind> = {
  'oracle.config': 'public',
  'oracle.models': 'public',
  'oracle.createSession': 'scoped',
  'oracle.listSessions': 'own',
  'oracle.deleteSession': 'scoped',
  'oracle.transcript': 'scoped',
  'oracle.currentRun': 'scoped',
  'oracle.decideToolApproval': 'scoped',
  'oracle.abort': 'scoped',
  'oracle.history': 'scoped',
  'oracle.send': 'scoped',
  'oracle.rejoinRun': 'scoped',
  'oracle.createRoom': 'own',
  'oracle.listRooms': 'own',
  'oracle.getRoom': 'scoped',
  'oracle.addRoomMember': 'scoped',
  'oracle.removeRoomMember': 'scoped',
  'oracle.storeDelegation': 'own',
  'preferences.get': 'scoped',
  'memory.list': 'own',
  'memory.remember': 'own',
  'memory.forget': 'scoped',
  'credits.account': 'own',
  'credits.pay': 'own',
};

let app: OracleApp;
let a: OracleUser;
let b: OracleUser;
let c: OracleUser;
let own: Ids;
/** What A has, read before B tries anything. */
let before: Record<string, unknown>;

const call = (user: OracleUser, req: { method: string; path: string; body?: unknown }) =>
  oracleApi(app.url, user).call(req.method, req.path, req.body);

/** What B gets for a thing that does not exist. */
function unknownIds(): Ids {
  return {
    sessionId: '00000000-0000-4000-8000-000000000000',
    runId: 'run_00000000-0000-4000-8000-000000000000',
    roomId: 'room_00000000-0000-4000-8000-000000000000',
    memberDid: c.did,
    memoryId: 'mem_00000000-0000-4000-8000-000000000000',
  };
}

/** Everything of A's that B's attempts must leave as it was. */
async function snapshotOfA(): Promise<Record<string, unknown>> {
  const api = oracleApi(app.url, a);
  const [history, room, prefs, memories, sessions] = await Promise.all([
    api.call('GET', `/messages/${own.sessionId}`),
    api.call('GET', `/rooms/${own.roomId}`),
    api.call('GET', `/user-preferences?roomId=${own.roomId}`),
    api.call('GET', '/memory'),
    api.call('GET', '/sessions'),
  ]);
  return {
    history: history.body,
    room: room.body,
    prefs: prefs.body,
    memories: memories.body,
    sessions: sessions.body,
  };
}

beforeAll(async () => {
  app = await startOracleApp({ env: { ORACLE_FEATURES: 'memory,credits', CREDITS_INITIAL_BALANCE: '1000' } });
  [a, b, c] = await Promise.all([newUser(app.oracleDid), newUser(app.oracleDid), newUser(app.oracleDid)]);
  const api = oracleApi(app.url, a);
  const room = (await api.call('POST', '/rooms', { name: "A's team" })).body as { roomId: string };
  expect((await api.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(c.did)}`)).status).toBe(
    200,
  );
  const session = (await api.call('POST', '/sessions', { roomId: room.roomId })).body as {
    sessionId: string;
  };
  const turn = await api.stream(session.sessionId, { message: 'From now on call yourself Timu' });
  const runId = turn.response.headers.get('x-run-id') ?? '';
  const memory = (await api.call('POST', '/memory', { content: 'A grows maize.' })).body as { id: string };
  own = { sessionId: session.sessionId, runId, roomId: room.roomId, memberDid: c.did, memoryId: memory.id };
  before = await snapshotOfA();
  expect(before['prefs']).toMatchObject({ agentName: 'Timu' });
});
afterAll(() => app.close());

describe('every route of the agent service, as the wrong user', () => {
  it('classifies every route of the contracts', () => {
    expect(Object.keys(KINDS).sort()).toEqual(Object.keys(ORACLE_ROUTES).sort());
  });

  const scoped = (Object.keys(KINDS) as RouteKey[]).filter((k) => KINDS[k] === 'scoped');
  it.each(scoped)("%s: B on A's things gets exactly the 404 of a thing that does not exist", async (key) => {
    // B names A's session, run, room, member or memory; B's own member DID where the route adds or removes one.
    const theirs = { ...own, memberDid: key === 'oracle.addRoomMember' ? b.did : own.memberDid };
    const other = await call(b, requestFor(key, theirs));
    const unknown = await call(b, requestFor(key, { ...unknownIds(), memberDid: theirs.memberDid }));
    expect({ key, status: other.status }).toEqual({ key, status: 404 });
    expect(other.headers.get('content-type')).toMatch(/^application\/json/);
    const { requestId: _r1, ...otherBody } = other.body as Record<string, unknown>;
    const { requestId: _r2, ...unknownBody } = unknown.body as Record<string, unknown>;
    expect(otherBody).toEqual(unknownBody);
    expect(otherBody['statusCode']).toBe(404);
  });

  it("a turn B sends in B's own session naming A's room is refused the same way", async () => {
    const session = await oracleApi(app.url, b).createSession();
    const other = await call(b, requestFor('oracle.send', { ...own, sessionId: session.sessionId }));
    const unknown = await call(
      b,
      requestFor('oracle.send', { ...unknownIds(), sessionId: session.sessionId }),
    );
    expect(other.status).toBe(404);
    expect({ ...other.body, requestId: 0 }).toEqual({ ...unknown.body, requestId: 0 });
    expect(other.body.code).toBe('room_not_found');
    expect((await call(b, { method: 'GET', path: `/messages/${session.sessionId}` })).body.messages).toEqual(
      [],
    );
  });

  it('routes that list or create show B nothing of A', async () => {
    const api = oracleApi(app.url, b);
    const sessions = (await api.call('GET', '/sessions')).body.sessions as { sessionId: string }[];
    expect(sessions.map((x) => x.sessionId)).not.toContain(own.sessionId);
    expect((await api.call('GET', '/rooms')).body.rooms).toEqual([]);
    expect((await api.call('GET', '/memory')).body).toEqual({ memories: [], total: 0 });
    expect((await api.call('GET', '/user-preferences')).body).toBeNull();
    expect((await api.call('GET', '/credits')).body).toMatchObject({ balance: 1000, outstandingClaims: [] });
    // B cannot store A's delegation as B's.
    const stolen = await api.call('POST', '/delegation', a.delegation);
    expect(stolen).toMatchObject({ status: 401, body: { code: 'auth_issuer_mismatch' } });
  });

  it("nothing of A's changed: history, room, members, preferences, memories, sessions", async () => {
    expect(await snapshotOfA()).toEqual(before);
  });

  it('the owner passes on every scoped route, and a member of the room on the room-scoped ones', async () => {
    const api = oracleApi(app.url, a);
    expect((await api.call('GET', `/sessions/${own.sessionId}/messages`)).status).toBe(200);
    expect((await api.call('GET', `/messages/${own.sessionId}`)).status).toBe(200);
    expect((await api.call('GET', `/sessions/${own.sessionId}/run`)).status).toBe(200);
    const rejoined = await api.rejoin(own.runId, 0);
    expect(rejoined.response.status).toBe(200);
    expect(rejoined.events.at(-1)?.event).toBe('done');
    expect((await api.call('POST', '/messages/abort', { sessionId: own.sessionId })).status).toBe(200);
    expect((await api.call('GET', `/rooms/${own.roomId}`)).status).toBe(200);
    expect((await api.call('GET', `/user-preferences?roomId=${own.roomId}`)).body).toMatchObject({
      agentName: 'Timu',
    });
    const member = oracleApi(app.url, c);
    expect((await member.call('GET', `/rooms/${own.roomId}`)).status).toBe(200);
    expect((await member.call('GET', `/user-preferences?roomId=${own.roomId}`)).body).toMatchObject({
      agentName: 'Timu',
    });
    const inRoom = await member.call('POST', '/sessions', { roomId: own.roomId });
    expect(inRoom.status).toBe(201);
    const sent = await member.call('POST', `/messages/${inRoom.body.sessionId}`, { message: 'habari' });
    expect(sent.status).toBe(200);
    // A member is not the owner: adding someone is 403, not 404 (the member knows the room exists).
    expect(
      await member.call('PUT', `/rooms/${own.roomId}/members/${encodeURIComponent(b.did)}`),
    ).toMatchObject({ status: 403, body: { code: 'room_owner_only' } });
    expect((await api.call('POST', `/messages/${own.sessionId}`, { message: 'hello again' })).status).toBe(
      200,
    );
    const remembered = (await api.call('POST', '/memory', { content: 'Delete me.' })).body as { id: string };
    expect((await api.call('DELETE', `/memory/${remembered.id}`)).status).toBe(200);
    const removed = await api.call('DELETE', `/rooms/${own.roomId}/members/${encodeURIComponent(c.did)}`);
    expect(removed.status).toBe(200);
    expect(removed.body.members.map((m: { did: string }) => m.did)).toEqual([a.did]);
    // Removed, C is anyone else now: the room, its preferences and its sessions' turns answer 404.
    expect((await member.call('GET', `/rooms/${own.roomId}`)).status).toBe(404);
    expect((await member.call('GET', `/user-preferences?roomId=${own.roomId}`)).status).toBe(404);
    expect(
      (await member.call('POST', `/messages/${inRoom.body.sessionId}`, { message: 'still here?' })).body.code,
    ).toBe('room_not_found');
    const throwaway = await api.createSession();
    expect((await api.call('DELETE', `/sessions/${throwaway.sessionId}`)).status).toBe(200);
  });
});
