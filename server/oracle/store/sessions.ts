import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { ChatSession } from '../../../contracts/oracle.js';
import type { Database, OracleSessionsTable } from '../../db/schema.js';

type Row = Selectable<OracleSessionsTable>;

/** A stored chat session. */
export type SessionRow = Row;

/** What a ChatSession needs beyond its row. */
export interface SessionView {
  oracleName: string;
  oracleEntityDid: string | undefined;
}

/** Chat sessions, each owned by one user; another user's session reads as absent. */
export class SessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly oracleDid: string,
  ) {}

  async create(
    userDid: string,
    options: { title?: string | undefined; roomId?: string | undefined },
  ): Promise<Row> {
    return this.db
      .insertInto('oracle_sessions')
      .values({
        session_id: randomUUID(),
        user_did: userDid,
        oracle_did: this.oracleDid,
        title: options.title ?? null,
        room_id: options.roomId ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The session when it exists and belongs to `userDid`. */
  async get(userDid: string, sessionId: string): Promise<Row | undefined> {
    return this.db
      .selectFrom('oracle_sessions')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('user_did', '=', userDid)
      .where('oracle_did', '=', this.oracleDid)
      .executeTakeFirst();
  }

  async list(userDid: string, limit: number, offset: number): Promise<{ rows: Row[]; total: number }> {
    const base = this.db
      .selectFrom('oracle_sessions')
      .where('user_did', '=', userDid)
      .where('oracle_did', '=', this.oracleDid);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('last_updated_at', 'desc')
        .orderBy('session_id')
        .limit(limit)
        .offset(offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** Deletes the session with its messages and runs; false when it is not the user's. */
  async delete(userDid: string, sessionId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('oracle_sessions')
      .where('session_id', '=', sessionId)
      .where('user_did', '=', userDid)
      .where('oracle_did', '=', this.oracleDid)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Marks activity; sets the title from the first message when the session has none. */
  async touch(sessionId: string, titleIfUnset?: string): Promise<void> {
    await this.db
      .updateTable('oracle_sessions')
      .set((eb) => ({
        last_updated_at: new Date(),
        ...(titleIfUnset === undefined ? {} : { title: eb.fn.coalesce('title', eb.val(titleIfUnset)) }),
      }))
      .where('session_id', '=', sessionId)
      .execute();
  }
}

/** The wire form of a session (contracts/oracle.ts ChatSession). */
export function toChatSession(row: Row, view: SessionView): ChatSession {
  return {
    sessionId: row.session_id,
    ...(row.title === null ? {} : { title: row.title }),
    createdAt: row.created_at.toISOString(),
    lastUpdatedAt: row.last_updated_at.toISOString(),
    oracleName: view.oracleName,
    oracleDid: row.oracle_did,
    ...(view.oracleEntityDid === undefined ? {} : { oracleEntityDid: view.oracleEntityDid }),
    ...(row.room_id === null ? {} : { roomId: row.room_id }),
  };
}
