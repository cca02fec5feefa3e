import type { Insertable, Kysely, Selectable } from 'kysely';
import type { MessageDto, StoredToolCall, TranscriptPage } from '../../../contracts/oracle.js';
import type { Database, OracleMessagesTable } from '../../db/schema.js';

type Row = Selectable<OracleMessagesTable>;

/** A message to store. */
export interface NewMessage {
  id: string;
  sessionId: string;
  type: 'ai' | 'human';
  content: string;
  toolCalls?: StoredToolCall[] | undefined;
  reasoning?: string | undefined;
  /** How the turn ended, when not `finished`. */
  runStatus?: string | undefined;
  attachment?: Record<string, unknown> | undefined;
}

/** A transcript cursor could not be read. */
export class BadCursorError extends Error {
  override name = 'BadCursorError';
}

/** The newest messages of a session a thread cache keeps (a turn reads at most this many). */
export const THREAD_WINDOW = 51;
/** How many sessions' threads an instance with an exclusive database keeps. */
const REMEMBERED_THREADS = 2_000;

/**
 * Messages of chat sessions, in `seq` order. Cursors are opaque to clients: base64url of `s<seq>`, so paging is
 * stable while new messages arrive.
 */
export class MessageStore {
  /**
   * The newest {@link THREAD_WINDOW} messages of recently used sessions, oldest first: only with an exclusive
   * database, where every message is written through this process (this store, or {@link stored} after a
   * statement of another store). A turn then reads its thread without a query.
   */
  private readonly threads: Map<string, MessageDto[]> | undefined;
  /** Sessions whose thread is being read: set to true when one of their messages is written meanwhile. */
  private readonly reading = new Map<string, { stale: boolean }>();

  /**
   * @param options.exclusive this process is the database's only user (embedded PGlite): the threads of the
   *   sessions it has read are kept up to date in memory.
   */
  constructor(
    private readonly db: Kysely<Database>,
    options: { exclusive?: boolean } = {},
  ) {
    this.threads = options.exclusive ? new Map() : undefined;
  }

  async insert(message: NewMessage): Promise<void> {
    await this.db
      .insertInto('oracle_messages')
      .values(messageRow(message))
      .onConflict((oc) => oc.columns(['session_id', 'id']).doNothing())
      .execute()
      .then(...this.settled(message));
  }

  /**
   * Tells the thread cache that `message` was stored (by a statement of another store). Call it once the
   * statement succeeded, in the order the statements ran; after a failed one, call {@link forget}.
   */
  stored(message: NewMessage, createdAt: Date = new Date()): void {
    const read = this.reading.get(message.sessionId);
    if (read) read.stale = true;
    const thread = this.threads?.get(message.sessionId);
    if (!thread) return;
    // An id already stored is not inserted again (ON CONFLICT DO NOTHING).
    if (thread.some((m) => m.id === message.id)) return;
    thread.push(storedDto(message, createdAt));
    if (thread.length > THREAD_WINDOW) thread.shift();
  }

  /** What a write of `message` does to the thread cache once it settles: {@link stored}, or {@link forget}. */
  private settled(message: NewMessage): [() => void, (err: unknown) => never] {
    return [
      () => this.stored(message),
      (err: unknown) => {
        this.forget(message.sessionId);
        throw err;
      },
    ];
  }

  /** Drops a session's cached thread (it was deleted, or a write's outcome is unknown). */
  forget(sessionId: string): void {
    const read = this.reading.get(sessionId);
    if (read) read.stale = true;
    this.threads?.delete(sessionId);
  }

  /** Stores a message and marks its session active, in one statement. */
  async insertAndTouch(message: NewMessage): Promise<void> {
    await this.db
      .with('message', (db) =>
        db
          .insertInto('oracle_messages')
          .values(messageRow(message))
          .onConflict((oc) => oc.columns(['session_id', 'id']).doNothing())
          .returning('seq'),
      )
      .updateTable('oracle_sessions')
      .set({ last_updated_at: new Date() })
      .where('session_id', '=', message.sessionId)
      .execute()
      .then(...this.settled(message));
  }

  /** The whole thread, oldest first. */
  async all(sessionId: string): Promise<MessageDto[]> {
    const rows = await this.db
      .selectFrom('oracle_messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('seq')
      .execute();
    return rows.map(toDto);
  }

  /** The messages a model sees as the thread so far (oldest first, at most `limit` of the newest). */
  async recent(sessionId: string, limit: number): Promise<MessageDto[]> {
    const cached = limit <= THREAD_WINDOW ? this.threads?.get(sessionId) : undefined;
    if (cached) return cached.slice(-limit);
    const keep = this.threads !== undefined && limit <= THREAD_WINDOW && !this.reading.has(sessionId);
    const read = { stale: false };
    if (keep) this.reading.set(sessionId, read);
    let rows: Row[];
    try {
      rows = await this.db
        .selectFrom('oracle_messages')
        .selectAll()
        .where('session_id', '=', sessionId)
        .orderBy('seq', 'desc')
        .limit(keep ? THREAD_WINDOW : limit)
        .execute();
    } finally {
      if (keep) this.reading.delete(sessionId);
    }
    const thread = rows.reverse().map(toDto);
    // Kept unless a message of the session was written while it was read (the rows may miss it).
    if (this.threads && keep && !read.stale) {
      if (this.threads.size >= REMEMBERED_THREADS)
        this.threads.delete(this.threads.keys().next().value as string);
      this.threads.set(sessionId, thread);
      return thread.slice(-limit);
    }
    return thread;
  }

  /** One page (TranscriptPage): the newest without a cursor, older with `before`, newer with `after`. */
  async page(
    sessionId: string,
    query: { limit: number; before?: string | undefined; after?: string | undefined },
  ): Promise<TranscriptPage> {
    if (query.before !== undefined && query.after !== undefined) {
      throw new BadCursorError('give before or after, not both');
    }
    const before = query.before === undefined ? undefined : decodeCursor(query.before);
    const after = query.after === undefined ? undefined : decodeCursor(query.after);
    let q = this.db.selectFrom('oracle_messages').selectAll().where('session_id', '=', sessionId);
    if (before !== undefined) q = q.where('seq', '<', before);
    if (after !== undefined) q = q.where('seq', '>', after);
    // One more row than asked tells whether there is more in the direction of travel.
    const rows = await q
      .orderBy('seq', after !== undefined ? 'asc' : 'desc')
      .limit(query.limit + 1)
      .execute();
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    if (after === undefined) page.reverse();
    const first = page[0];
    const last = page[page.length - 1];
    const hasOlder =
      after !== undefined ? first !== undefined && (await this.exists(sessionId, '<', seqOf(first))) : more;
    const hasNewer =
      after !== undefined
        ? more
        : last !== undefined && before !== undefined && (await this.exists(sessionId, '>', seqOf(last)));
    return {
      messages: page.map(toDto),
      prevCursor: hasOlder && first ? encodeCursor(seqOf(first)) : null,
      nextCursor: hasNewer && last ? encodeCursor(seqOf(last)) : null,
      hasOlder,
      hasNewer,
    };
  }

  private async exists(sessionId: string, op: '<' | '>', seq: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('oracle_messages')
      .select('seq')
      .where('session_id', '=', sessionId)
      .where('seq', op, seq)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}

/** The row of a new message. */
export function messageRow(message: NewMessage): Insertable<OracleMessagesTable> {
  return {
    id: message.id,
    session_id: message.sessionId,
    type: message.type,
    content: message.content,
    tool_calls: message.toolCalls?.length ? JSON.stringify(message.toolCalls) : null,
    reasoning: message.reasoning || null,
    run_status: message.runStatus ?? null,
    attachment: message.attachment ? JSON.stringify(message.attachment) : null,
  };
}

function seqOf(row: Row): number {
  return Number(row.seq);
}

function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,40}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const match = /^s(\d{1,15})$/.exec(text);
  if (!match?.[1]) throw new BadCursorError(`not a transcript cursor: ${cursor.slice(0, 40)}`);
  return Number(match[1]);
}

/** A message as the API answers it once stored at `createdAt`. */
export function storedDto(message: NewMessage, createdAt: Date): MessageDto {
  return toDto({
    seq: 0,
    id: message.id,
    session_id: message.sessionId,
    type: message.type,
    content: message.content,
    tool_calls: message.toolCalls?.length ? message.toolCalls : null,
    reasoning: message.reasoning || null,
    run_status: message.runStatus ?? null,
    attachment: message.attachment ?? null,
    created_at: createdAt,
  });
}

/** A stored message as the API answers it. */
export function toDto(row: Row): MessageDto {
  const toolCalls = row.tool_calls as StoredToolCall[] | null;
  return {
    id: row.id,
    type: row.type,
    content: row.content,
    createdAt: row.created_at.toISOString(),
    ...(toolCalls?.length ? { toolCalls } : {}),
    ...(row.reasoning ? { reasoning: row.reasoning } : {}),
    ...(row.type === 'ai' ? { isComplete: true as const, isReasoning: false as const } : {}),
    ...(row.run_status && row.run_status !== 'finished'
      ? { runStatus: row.run_status as NonNullable<MessageDto['runStatus']> }
      : {}),
    ...(row.attachment ? { attachment: row.attachment as NonNullable<MessageDto['attachment']> } : {}),
  };
}
