import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Room } from '../../../contracts/oracle.js';
import type { Database, OracleRoomsTable } from '../../db/schema.js';
import { countOf, withinQuotas, type QuotaCheck } from './quota.js';

/** What a caller is in a room. */
export type RoomRole = 'owner' | 'member';

type RoomRow = Selectable<OracleRoomsTable>;

/** The quotas of rooms (ORACLE_MAX_ROOMS_OWNED, ORACLE_MAX_ROOMS_JOINED, ORACLE_MAX_ROOM_MEMBERS); 0: none. */
export interface RoomQuotas {
  /** Rooms one user owns. */
  owned: number;
  /** Rooms one user is a member of (not counting those they own). */
  joined: number;
  /** Members of one room besides its owner. */
  members: number;
}

/**
 * Rooms of this oracle: the scope of shared preferences and of a session's `roomId`. A room has an owner (its
 * creator) and members the owner adds and removes by DID. For anyone else a room reads as absent: every method
 * that takes a caller answers `undefined` for a room they are not in, exactly as for a room that does not exist.
 */
export class RoomStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly oracleDid: string,
    private readonly quotas: RoomQuotas = { owned: 0, joined: 0, members: 0 },
  ) {}

  /**
   * Creates a room owned by `ownerDid`; its id is random (a name chosen by a client could be taken, and say so).
   * Throws QuotaExceededError (quota.ts) when the owner has as many rooms as ORACLE_MAX_ROOMS_OWNED allows.
   */
  async create(ownerDid: string, name: string | undefined): Promise<Room> {
    const owned: QuotaCheck = {
      name: 'rooms_owned',
      limit: this.quotas.owned,
      what: 'rooms owned per user (ORACLE_MAX_ROOMS_OWNED)',
      key: `rooms-owned:${this.oracleDid}:${ownerDid}`,
      count: async (trx) =>
        countOf(
          await trx
            .selectFrom('oracle_rooms')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('oracle_did', '=', this.oracleDid)
            .where('owner_did', '=', ownerDid)
            .executeTakeFirst(),
        ),
    };
    const row = await withinQuotas(this.db, [owned], (trx) =>
      trx
        .insertInto('oracle_rooms')
        .values({
          oracle_did: this.oracleDid,
          room_id: `room_${randomUUID()}`,
          owner_did: ownerDid,
          name: name ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
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

  /** One page of the rooms the caller owns or is a member of, newest first, and how many there are in all. */
  async list(userDid: string, limit: number, offset: number): Promise<{ rooms: Room[]; total: number }> {
    const base = this.db
      .selectFrom('oracle_rooms')
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
      );
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('room_id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirst(),
    ]);
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
    return {
      rooms: rows.map((r) =>
        toRoom(
          r,
          members.filter((m) => m.room_id === r.room_id),
        ),
      ),
      total: countOf(count),
    };
  }

  /**
   * Adds a member (the owner only: the caller checks); adding one twice changes nothing. Throws
   * QuotaExceededError (quota.ts) when the room has ORACLE_MAX_ROOM_MEMBERS members besides its owner, or the
   * member is in ORACLE_MAX_ROOMS_JOINED rooms already.
   */
  async addMember(roomId: string, memberDid: string, addedBy: string): Promise<Room> {
    const insert = (db: Kysely<Database>) =>
      db
        .insertInto('oracle_room_members')
        .values({ oracle_did: this.oracleDid, room_id: roomId, member_did: memberDid, added_by: addedBy })
        .onConflict((oc) => oc.columns(['oracle_did', 'room_id', 'member_did']).doNothing())
        .execute();
    if (await this.hasMember(roomId, memberDid)) {
      await insert(this.db);
    } else {
      const members: QuotaCheck = {
        name: 'room_members',
        limit: this.quotas.members,
        what: 'members per room besides its owner (ORACLE_MAX_ROOM_MEMBERS)',
        key: `room-members:${this.oracleDid}:${roomId}`,
        count: async (trx) =>
          countOf(
            await trx
              .selectFrom('oracle_room_members as m')
              .innerJoin('oracle_rooms as r', (join) =>
                join.onRef('r.oracle_did', '=', 'm.oracle_did').onRef('r.room_id', '=', 'm.room_id'),
              )
              .select((eb) => eb.fn.countAll<string>().as('n'))
              .where('m.oracle_did', '=', this.oracleDid)
              .where('m.room_id', '=', roomId)
              .whereRef('m.member_did', '<>', 'r.owner_did')
              .executeTakeFirst(),
          ),
      };
      const joined: QuotaCheck = {
        name: 'rooms_joined',
        limit: this.quotas.joined,
        what: 'rooms a user is a member of (ORACLE_MAX_ROOMS_JOINED): they must leave one first',
        key: `rooms-joined:${this.oracleDid}:${memberDid}`,
        count: async (trx) =>
          countOf(
            await trx
              .selectFrom('oracle_room_members')
              .select((eb) => eb.fn.countAll<string>().as('n'))
              .where('oracle_did', '=', this.oracleDid)
              .where('member_did', '=', memberDid)
              .executeTakeFirst(),
          ),
      };
      await withinQuotas(this.db, [members, joined], insert);
    }
    await this.audit(roomId, addedBy, 'member_added', { member: memberDid });
    return this.read(roomId);
  }

  private async hasMember(roomId: string, memberDid: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('oracle_room_members')
      .select('member_did')
      .where('oracle_did', '=', this.oracleDid)
      .where('room_id', '=', roomId)
      .where('member_did', '=', memberDid)
      .executeTakeFirst();
    return row !== undefined;
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
