// Rooms with members: the owner (the creator) adds and removes members by DID; a member may leave; changes to
// a shared room's preferences are audit-logged with the member's DID.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as roomsMigration from '../../server/db/migrations/0007-rooms-and-payments.js';
import { openTestDb } from '../helpers/db.js';
import { Room } from '../../contracts/oracle.js';
import { RoomStore } from '../../server/oracle/store/rooms.js';
import { newUser, oracleApi } from '../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../helpers/oracle/oracle-app.js';

let app: OracleApp;
beforeAll(async () => {
  app = await startOracleApp();
});
afterAll(() => app.close());

describe('rooms', () => {
  it('the owner adds and removes members by DID; members see the room and may leave; the owner may not', async () => {
    const [owner, member] = await Promise.all([newUser(app.oracleDid), newUser(app.oracleDid)]);
    const api = oracleApi(app.url, owner);
    const created = await api.call('POST', '/rooms', { name: 'Clinic team' });
    expect(created.status).toBe(201);
    const room = Room.parse(created.body);
    expect(room).toMatchObject({
      roomId: expect.stringMatching(/^room_[0-9a-f-]{36}$/),
      name: 'Clinic team',
      ownerDid: owner.did,
      members: [{ did: owner.did, role: 'owner' }],
    });
    const added = await api.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(member.did)}`);
    expect(added.body.members.map((m: { did: string; role: string }) => [m.did, m.role])).toEqual([
      [owner.did, 'owner'],
      [member.did, 'member'],
    ]);
    // Adding twice changes nothing.
    expect(
      (await api.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(member.did)}`)).body.members,
    ).toHaveLength(2);
    const memberApi = oracleApi(app.url, member);
    expect((await memberApi.call('GET', '/rooms')).body.rooms.map((r: Room) => r.roomId)).toEqual([
      room.roomId,
    ]);
    expect(
      await api.call('DELETE', `/rooms/${room.roomId}/members/${encodeURIComponent(owner.did)}`),
    ).toMatchObject({
      status: 400,
      body: { code: 'bad_request', message: 'The owner cannot leave their room.' },
    });
    // A member neither adds nor removes anyone but themselves.
    const third = await newUser(app.oracleDid);
    expect(
      await memberApi.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(third.did)}`),
    ).toMatchObject({
      status: 403,
      body: { code: 'room_owner_only', message: 'Only the owner of the room adds members.' },
    });
    expect(
      await memberApi.call('DELETE', `/rooms/${room.roomId}/members/${encodeURIComponent(owner.did)}`),
    ).toMatchObject({
      status: 403,
      body: { code: 'room_owner_only', message: 'Only the owner of the room removes other members.' },
    });
    expect((await api.call('GET', `/rooms/${room.roomId}`)).body.members).toHaveLength(2);
    const left = await memberApi.call(
      'DELETE',
      `/rooms/${room.roomId}/members/${encodeURIComponent(member.did)}`,
    );
    expect(left.status).toBe(200);
    expect((await memberApi.call('GET', '/rooms')).body.rooms).toEqual([]);
    expect((await memberApi.call('GET', `/rooms/${room.roomId}`)).status).toBe(404);
    // A DID that is not one is a 400.
    expect((await api.call('PUT', `/rooms/${room.roomId}/members/not-a-did`)).status).toBe(400);
  });

  it("a member's change to the room's preferences is audit-logged with the member's DID", async () => {
    const [owner, member] = await Promise.all([newUser(app.oracleDid), newUser(app.oracleDid)]);
    const api = oracleApi(app.url, owner);
    const { roomId } = (await api.call('POST', '/rooms', {})).body as { roomId: string };
    await api.call('PUT', `/rooms/${roomId}/members/${encodeURIComponent(member.did)}`);
    const memberApi = oracleApi(app.url, member);
    const session = (await memberApi.call('POST', '/sessions', { roomId })).body as { sessionId: string };
    await memberApi.stream(session.sessionId, { message: 'Always use bullet points' });
    expect((await api.call('GET', `/user-preferences?roomId=${roomId}`)).body).toMatchObject({
      format: 'bullets',
    });
    const log = await new RoomStore(app.db.kysely, app.oracleDid).auditLog(roomId);
    expect(log).toEqual([
      { actorDid: owner.did, event: 'member_added', detail: { member: member.did } },
      { actorDid: member.did, event: 'preferences_changed', detail: { changes: { format: 'bullets' } } },
    ]);
  });
});

describe('GET /rooms pages like GET /sessions (issue 36 item 5)', () => {
  it('limit and offset page the rooms, newest first, with the total; limits out of range are 400', async () => {
    const [owner, victim] = await Promise.all([newUser(app.oracleDid), newUser(app.oracleDid)]);
    const api = oracleApi(app.url, owner);
    const made: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const room = (await api.call('POST', '/rooms', { name })).body as Room;
      await api.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(victim.did)}`);
      made.unshift(room.roomId);
    }
    const victimApi = oracleApi(app.url, victim);
    const first = await victimApi.call('GET', '/rooms?limit=1');
    expect(first.status).toBe(200);
    expect({ ids: first.body.rooms.map((r: Room) => r.roomId), total: first.body.total }).toEqual({
      ids: made.slice(0, 1),
      total: 3,
    });
    const rest = await victimApi.call('GET', '/rooms?limit=2&offset=1');
    expect(rest.body.rooms.map((r: Room) => r.roomId)).toEqual(made.slice(1));
    expect((await victimApi.call('GET', '/rooms?offset=3')).body).toEqual({ rooms: [], total: 3 });
    // The default page is 20, as for sessions.
    expect((await victimApi.call('GET', '/rooms')).body.rooms).toHaveLength(3);
    for (const bad of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
      const refused = await victimApi.call('GET', `/rooms?${bad}`);
      expect({ bad, status: refused.status, code: refused.body.code }).toEqual({
        bad,
        status: 400,
        code: 'bad_request',
      });
    }
  });
});

describe('the owner cannot add a malformed DID (issue 36 item 5)', () => {
  it.each([
    'did:key:abc',
    'did:key:z6Mk0OIl',
    'did:key:6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    'did:ixo:cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq',
    'did:ixo:ixo1UPPERCASEUPPERCASEUPPERCASEUPPERCASEUP',
    'did:ixo:entity:',
    'did:web:example.com',
    'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK:extra',
  ])('PUT member %s answers 400 bad_request naming memberDid, and adds nobody', async (did) => {
    const owner = await newUser(app.oracleDid);
    const api = oracleApi(app.url, owner);
    const room = (await api.call('POST', '/rooms', {})).body as Room;
    const refused = await api.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(did)}`);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 'bad_request' });
    expect(refused.body.message).toContain('memberDid');
    expect((await api.call('GET', `/rooms/${room.roomId}`)).body.members).toHaveLength(1);
  });

  it('did:key (z…), did:ixo:ixo1… and did:ixo:entity:… members are accepted', async () => {
    const [owner, keyUser] = await Promise.all([newUser(app.oracleDid), newUser(app.oracleDid)]);
    const api = oracleApi(app.url, owner);
    const room = (await api.call('POST', '/rooms', {})).body as Room;
    for (const did of [
      keyUser.did,
      'did:ixo:ixo1xc798xnhp7yy9mpp80v3tsxppw8qk0y9atm5ds',
      'did:ixo:entity:oracle7d1e3c9a2b',
    ]) {
      const added = await api.call('PUT', `/rooms/${room.roomId}/members/${encodeURIComponent(did)}`);
      expect({ did, status: added.status }).toEqual({ did, status: 200 });
    }
  });
});

describe('migration 0007-rooms-and-payments', () => {
  it("makes the rooms sessions named before into rooms owned by the user of the room's first session", async () => {
    await using db = await openTestDb();
    const raw = db.kysely as unknown as Kysely<unknown>;
    await roomsMigration.down(raw);
    const session = (id: string, user: string, room: string | null, at: string) => ({
      session_id: id,
      user_did: user,
      oracle_did: 'did:key:zOracle',
      title: null,
      room_id: room,
      created_at: new Date(at),
    });
    await db.kysely
      .insertInto('oracle_sessions')
      .values([
        session('s2', 'did:key:zLater', '!team:matrix.example', '2026-01-02T00:00:00Z'),
        session('s1', 'did:key:zFirst', '!team:matrix.example', '2026-01-01T00:00:00Z'),
        session('s3', 'did:key:zLater', null, '2026-01-03T00:00:00Z'),
      ])
      .execute();
    await roomsMigration.up(raw);
    const rooms = new RoomStore(db.kysely, 'did:key:zOracle');
    expect(await rooms.role('!team:matrix.example', 'did:key:zFirst')).toBe('owner');
    expect(await rooms.role('!team:matrix.example', 'did:key:zLater')).toBeUndefined();
    expect(await db.kysely.selectFrom('oracle_rooms').select('room_id').execute()).toEqual([
      { room_id: '!team:matrix.example' },
    ]);
  });
});
