import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { NEW_CHAT_TITLE, type ChatSession, type MessageDto } from '../../../contracts/oracle.js';
import type { Db } from '../../db/index.js';
import { preparedQuery, type PreparedQuery } from '../../db/prepared-query.js';
import type { Database, OracleSessionsTable } from '../../db/schema.js';
import { countOf, withinQuotas } from './quota.js';
import { THREAD_WINDOW } from './messages.js';
import {
  runRowsFromJson,
  STORED_IN_FLIGHT,
  threadFromJson,
  type RunRow,
  type RunRowJson,
  type ThreadJson,
} from './run-rows.js';
import { threadColumn } from './run-statements.js';

type Row = Selectable<OracleSessionsTable>;

/** What never changes in a session: whose it is and its room. Enough to authorize a request and run a turn. */
export type SessionRef = Pick<Row, 'session_id' | 'user_did' | 'room_id'>;

/** What a turn reads of its session before it starts (see {@link SessionStore.ownedForTurn}). */
export interface SessionForTurn {
  session: SessionRef;
  runsInFlight?: RunRow[] | undefined;
  /**
   * The session's newest messages, oldest first, as the turn found them: read as JSON text and parsed when
   * asked (after the turn's first event is on its way).
   */
  thread?: (() => MessageDto[]) | undefined;
}

/** How many sessions an instance with an exclusive database remembers. */
const REMEMBERED = 10_000;

/** What a ChatSession needs beyond its row. */
export interface SessionView {
  oracleName: string;
  oracleEntityDid: string | undefined;
}

/** Chat sessions, each owned by one user; another user's session reads as absent. */
export class SessionStore {
  /** Sessions known to exist, by id: only with an exclusive database, where no one else deletes one. */
  private readonly known: Map<string, SessionRef> | undefined;

  /** Sessions one user may keep (ORACLE_MAX_SESSIONS_PER_USER); 0: no quota. */
  private readonly maxPerUser: number;

  private readonly db: Kysely<Database>;

  /** A turn's read of its session with the session's runs in flight, prepared (server/db/prepared-query.ts). */
  readonly forTurn: PreparedQuery<ForTurnValues, ForTurnRow>;

  /**
   * @param options.exclusive this process is the database's only user (embedded PGlite): the sessions it
   *   has seen are remembered, so a turn's ownership check does not wait for the database.
   * @param options.maxPerUser the sessions one user may keep (0 or absent: no quota).
   */
  constructor(
    db: Db,
    private readonly oracleDid: string,
    options: { exclusive?: boolean; maxPerUser?: number } = {},
  ) {
    this.db = db.kysely;
    this.known = options.exclusive ? new Map() : undefined;
    this.maxPerUser = options.maxPerUser ?? 0;
    this.forTurn = preparedQuery(db, 'oracle-session-for-turn', forTurnStatement(db.kysely));
  }

  private remember(row: SessionRef): void {
    if (!this.known) return;
    if (this.known.size >= REMEMBERED) this.known.delete(this.known.keys().next().value as string);
    this.known.set(row.session_id, {
      session_id: row.session_id,
      user_did: row.user_did,
      room_id: row.room_id,
    });
  }

  /** Creates a session; throws QuotaExceededError (quota.ts) when the user has as many as the quota allows. */
  async create(
    userDid: string,
    options: { title?: string | undefined; roomId?: string | undefined },
  ): Promise<Row> {
    const quota = {
      name: 'sessions' as const,
      limit: this.maxPerUser,
      what: 'chat sessions per user (ORACLE_MAX_SESSIONS_PER_USER); delete one to make another',
      key: `sessions:${this.oracleDid}:${userDid}`,
      count: async (trx: Kysely<Database>) =>
        countOf(
          await trx
            .selectFrom('oracle_sessions')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('user_did', '=', userDid)
            .where('oracle_did', '=', this.oracleDid)
            .executeTakeFirst(),
        ),
    };
    if (quota.limit === 0) return this.insert(this.db, userDid, options);
    return withinQuotas(this.db, [quota], (trx) => this.insert(trx, userDid, options));
  }

  private async insert(
    db: Kysely<Database>,
    userDid: string,
    options: { title?: string | undefined; roomId?: string | undefined },
  ): Promise<Row> {
    return db
      .insertInto('oracle_sessions')
      .values({
        session_id: randomUUID(),
        user_did: userDid,
        oracle_did: this.oracleDid,
        title: options.title ?? null,
        room_id: options.roomId ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
      .then((row) => {
        this.remember(row);
        return row;
      });
  }

  /**
   * The session's owner and room when it exists and belongs to `userDid`: what a request needs to be
   * authorized. Remembered with an exclusive database (see the constructor), else read each time.
   */
  async owned(userDid: string, sessionId: string): Promise<SessionRef | undefined> {
    const hit = this.known?.get(sessionId);
    if (hit) return hit.user_did === userDid ? hit : undefined;
    const row = await this.get(userDid, sessionId);
    if (row) this.remember(row);
    return row;
  }

  /**
   * For a turn: the session when it exists and belongs to `userDid`, with its runs in flight (a new turn ends
   * them first) and its thread (the newest THREAD_WINDOW messages) read by the same statement. With an
   * exclusive database the session may come from memory and neither is read (`runsInFlight` absent: the
   * instance executes every one of them; the thread is in the message store's cache).
   */
  async ownedForTurn(userDid: string, sessionId: string): Promise<SessionForTurn | undefined> {
    if (this.known) {
      const session = await this.owned(userDid, sessionId);
      return session && { session };
    }
    const [row] = await this.forTurn({
      sessionId,
      userDid,
      oracleDid: this.oracleDid,
      threadWindow: THREAD_WINDOW,
    });
    if (!row) return undefined;
    const { runs_in_flight, thread, ...session } = row;
    return {
      session,
      runsInFlight: runRowsFromJson(runs_in_flight),
      thread: () => threadFromJson(JSON.parse(thread) as ThreadJson),
    };
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
        // The title a session was given, else its first user message (trimmed), else null (toChatSession
        // answers NEW_CHAT_TITLE): derived here so a session listed before its first turn is stored, or
        // stored without one, still has its title.
        .select((eb) =>
          eb.fn
            .coalesce(
              'oracle_sessions.title',
              eb
                .selectFrom('oracle_messages')
                .select(sql<string>`btrim(oracle_messages.content)`.as('first'))
                .whereRef('oracle_messages.session_id', '=', 'oracle_sessions.session_id')
                .where('oracle_messages.type', '=', 'human')
                .orderBy('oracle_messages.seq')
                .limit(1),
            )
            .as('title'),
        )
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
    if (result.numDeletedRows > 0n) this.known?.delete(sessionId);
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
    // Stored as null until there is a title, so the first message's `coalesce` can set it (runs.ts).
    title: row.title ?? NEW_CHAT_TITLE,
    createdAt: row.created_at.toISOString(),
    lastUpdatedAt: row.last_updated_at.toISOString(),
    oracleName: view.oracleName,
    oracleDid: row.oracle_did,
    ...(view.oracleEntityDid === undefined ? {} : { oracleEntityDid: view.oracleEntityDid }),
    ...(row.room_id === null ? {} : { roomId: row.room_id }),
  };
}

type ForTurnValues = { sessionId: string; userDid: string; oracleDid: string; threadWindow: number };

/** `thread` is JSON text (ThreadJson), parsed only when the turn needs it. */
type ForTurnRow = SessionRef & { runs_in_flight: RunRowJson[]; thread: string };

/**
 * The session when it exists and belongs to the user, with its runs in flight and its newest messages, each as
 * one JSON column.
 */
function forTurnStatement(db: Kysely<Database>) {
  return (v: ForTurnValues) =>
    db
      .selectFrom('oracle_sessions as s')
      .select(['s.session_id', 's.user_did', 's.room_id'])
      .select(sql<string>`${threadColumn(db, v.sessionId, v.threadWindow)}::text`.as('thread'))
      .select((eb) =>
        sql<RunRowJson[]>`(select coalesce(json_agg(r), '[]') from (${eb
          .selectFrom('oracle_runs')
          .selectAll()
          .whereRef('oracle_runs.session_id', '=', 's.session_id')
          .where('oracle_runs.status', 'in', STORED_IN_FLIGHT)}) r)`.as('runs_in_flight'),
      )
      .where('s.session_id', '=', v.sessionId)
      .where('s.user_did', '=', v.userDid)
      .where('s.oracle_did', '=', v.oracleDid);
}
