import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Room } from '../../../contracts/oracle.js';
import type { Database, OracleRoomsTable } from '../../db/schema.js';

/** What a caller is in a room. */
export type RoomRole = 'owner' | 'member';

type RoomRow = Selectable<OracleRoomsTable>;

/**
 * Rooms of this oracle: the scope of shared preferences and of a session's `roomId`. A room has an owner (its
 * creator) and members the owner adds and removes by DID. For anyone else a room reads as absent: every method
 * that takes a caller answers `undefined` for a room they are not in, exactly as for a room that does not exist.
 */
export class RoomStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly oracleDid: string,
  ) {}

  /** Creates a room owned by `ownerDid`; its id is random (a name chosen by a client could be taken, and say so). */
  async create(ownerDid: string, name: string | undefined): Promise<Room> {
    const row = await this.db
      .insertInto('oracle_rooms')
      .values({
        oracle_did: this.oracleDid,
        room_id: `room_${randomUUID()}`,
        owner_did: ownerDid,
        name: name ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRoom(row, []);
  }

  /** The caller's role in the room, or undefined when the room does not exist or the caller is not in it. */
  async role(roomId: string, userDid: string): Promise<RoomRole | undefined> {
    const row = await this.db
      .selectFrom('oracle_rooms as r')
      .leftJoin('oracle_room_members as m', (join) =>
        join
          .onRef('m.oracle_did', '=', 'r.oracle_did')
          .onRef('m.room_id', '=', 'r.room_id')
          .on('m.member_did', '=', userDid),
      )
      .select(['r.owner_did', 'm.member_did'])
      .where('r.oracle_did', '=', this.oracleDid)
      .where('r.room_id', '=', roomId)
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.owner_did === userDid) return 'owner';
    return row.member_did === userDid ? 'member' : undefined;
  }

  /** The room as its members see it, or undefined for anyone else. */
  async get(roomId: string, userDid: string): Promise<Room | undefined> {
    if (!(await this.role(roomId, userDid))) return undefined;
    return this.read(roomId);
  }

  /** Rooms the caller owns or is a member of, newest first. */
  async list(userDid: string): Promise<Room[]> {
    const rows = await this.db
      .selectFrom('oracle_rooms')
      .selectAll()
      .where('oracle_did', '=', this.oracleDid)
      .where((eb) =>
        eb.or([
          eb('owner_did', '=', userDid),
          eb(
            'room_id',
            'in',
            eb
              .selectFrom('oracle_room_members')
              .select('room_id')
              .where('oracle_did', '=', this.oracleDid)
              .where('member_did', '=', userDid),
          ),
        ]),
      )
      .orderBy('created_at', 'desc')
      .orderBy('room_id')
      .limit(500)
      .execute();
    const members = rows.length
      ? await this.db
          .selectFrom('oracle_room_members')
          .selectAll()
          .where('oracle_did', '=', this.oracleDid)
          .where(
            'room_id',
            'in',
            rows.map((r) => r.room_id),
          )
          .orderBy('added_at')
          .orderBy('member_did')
          .execute()
      : [];
    return rows.map((r) =>
      toRoom(
        r,
        members.filter((m) => m.room_id === r.room_id),
      ),
    );
  }

  /** Adds a member (the owner only: the caller checks); adding one twice changes nothing. */
  async addMember(roomId: string, memberDid: string, addedBy: string): Promise<Room> {
    await this.db
      .insertInto('oracle_room_members')
      .values({ oracle_did: this.oracleDid, room_id: roomId, member_did: memberDid, added_by: addedBy })
      .onConflict((oc) => oc.columns(['oracle_did', 'room_id', 'member_did']).doNothing())
      .execute();
    await this.audit(roomId, addedBy, 'member_added', { member: memberDid });
    return this.read(roomId);
  }

  /** Removes a member (the owner removes anyone else; a member removes themselves). */
  async removeMember(roomId: string, memberDid: string, removedBy: string): Promise<Room> {
    await this.db
      .deleteFrom('oracle_room_members')
      .where('oracle_did', '=', this.oracleDid)
      .where('room_id', '=', roomId)
      .where('member_did', '=', memberDid)
      .execute();
    await this.audit(roomId, removedBy, 'member_removed', { member: memberDid });
    return this.read(roomId);
  }

  /** Appends to the room's audit log: who (a member's DID) did what. */
  async audit(
    roomId: string,
    actorDid: string,
    event: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    await this.db
      .insertInto('oracle_room_audit')
      .values({
        oracle_did: this.oracleDid,
        room_id: roomId,
        actor_did: actorDid,
        event,
        detail: JSON.stringify(detail),
      })
      .execute();
  }

  /** The audit log of a room, oldest first (operators and tests). */
  async auditLog(
    roomId: string,
  ): Promise<{ actorDid: string; event: string; detail: Record<string, unknown> }[]> {
    const rows = await this.db
      .selectFrom('oracle_room_audit')
      .select(['actor_did', 'event', 'detail'])
      .where('oracle_did', '=', this.oracleDid)
      .where('room_id', '=', roomId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ actorDid: r.actor_did, event: r.event, detail: r.detail }));
  }

  private async read(roomId: string): Promise<Room> {
    const [row, members] = await Promise.all([
      this.db
        .selectFrom('oracle_rooms')
        .selectAll()
        .where('oracle_did', '=', this.oracleDid)
        .where('room_id', '=', roomId)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('oracle_room_members')
        .selectAll()
        .where('oracle_did', '=', this.oracleDid)
        .where('room_id', '=', roomId)
        .orderBy('added_at')
        .orderBy('member_did')
        .execute(),
    ]);
    return toRoom(row, members);
  }
}

function toRoom(row: RoomRow, members: { member_did: string; added_at: Date }[]): Room {
  return {
    roomId: row.room_id,
    ...(row.name === null ? {} : { name: row.name }),
    ownerDid: row.owner_did,
    members: [
      { did: row.owner_did, role: 'owner', addedAt: row.created_at.toISOString() },
      ...members
        .filter((m) => m.member_did !== row.owner_did)
        .map((m) => ({ did: m.member_did, role: 'member' as const, addedAt: m.added_at.toISOString() })),
    ],
    createdAt: row.created_at.toISOString(),
  };
}
