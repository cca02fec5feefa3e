import { sql, type Kysely, type Selectable } from 'kysely';
import {
  CUSTOM_INSTRUCTIONS_MAX,
  UserPreferences,
  type SetUserPreferencesArgs,
} from '../../../../contracts/preferences.js';
import type { Db } from '../../../db/index.js';
import { preparedQuery, type PreparedQuery } from '../../../db/prepared-query.js';
import type { Database, UserPreferencesTable } from '../../../db/schema.js';
import type { Logger } from '../../../logger.js';

/** The room a record belongs to: a shared room the request names, else the (user, oracle) pair's own. */
export function roomKey(userDid: string, sharedRoomId: string | undefined): string {
  return sharedRoomId ? `room:${sharedRoomId}` : `pair:${userDid}`;
}

/** One standing instruction per line of `customInstructions`. */
const SEPARATOR = '\n';

/** An instruction as compared for duplicates: case, spacing and closing punctuation do not count. */
const comparable = (instruction: string): string =>
  instruction
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!;,]+$/, '')
    .trim();

/** The instructions of a stored or given text: one per line, whitespace collapsed, empty ones dropped. */
export function splitInstructions(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0);
}

/**
 * Adds new standing instructions to the earlier ones: a duplicate (see {@link comparable}) is dropped, and
 * while the whole is longer than {@link CUSTOM_INSTRUCTIONS_MAX} the oldest go first. Returns the merged text
 * and the instructions dropped for length.
 */
export function mergeInstructions(
  earlier: string | undefined,
  added: string,
): { merged: string; dropped: string[] } {
  const list = splitInstructions(earlier ?? '');
  const seen = new Set(list.map(comparable));
  for (const instruction of splitInstructions(added)) {
    const key = comparable(instruction);
    if (seen.has(key)) continue;
    seen.add(key);
    list.push(instruction);
  }
  const dropped: string[] = [];
  while (list.length > 1 && list.join(SEPARATOR).length > CUSTOM_INSTRUCTIONS_MAX) {
    dropped.push(list.shift() as string);
  }
  let merged = list.join(SEPARATOR);
  // One instruction alone longer than the bound (the tool's argument is bounded too): cut it.
  if (merged.length > CUSTOM_INSTRUCTIONS_MAX) merged = merged.slice(0, CUSTOM_INSTRUCTIONS_MAX).trim();
  return { merged, dropped };
}

/** A room's record as a turn reads it. */
type PreferencesRow = Pick<Selectable<UserPreferencesTable>, 'preferences' | 'updated_at'>;

/** How many rooms' records an instance with an exclusive database keeps. */
const REMEMBERED = 10_000;

/** Preference records, one per room of this oracle, in the database. */
export class PreferencesStore {
  /** Records read or written, by room: only with an exclusive database (every write goes through here). */
  private readonly known: Map<string, UserPreferences | null> | undefined;
  /** Rooms being read: set to true when the room is written meanwhile (the read may miss the write). */
  private readonly reading = new Map<string, { stale: boolean }>();

  private readonly db: Kysely<Database>;

  /** A room's record, read on every turn: prepared (server/db/prepared-query.ts). */
  readonly readRoom: PreparedQuery<{ oracleDid: string; room: string }, PreferencesRow>;

  /**
   * @param options.exclusive this process is the database's only user (embedded PGlite): records are kept
   *   in memory once read, so a turn does not query for them.
   */
  constructor(
    db: Db,
    private readonly oracleDid: string,
    private readonly logger?: Logger,
    options: { exclusive?: boolean } = {},
  ) {
    this.db = db.kysely;
    this.readRoom = preparedQuery(db, 'oracle-user-preferences', (v: { oracleDid: string; room: string }) =>
      db.kysely
        .selectFrom('user_preferences')
        .select(['preferences', 'updated_at'])
        .where('oracle_did', '=', v.oracleDid)
        .where('room_key', '=', v.room),
    );
    this.known = options.exclusive ? new Map() : undefined;
  }

  private remember(room: string, record: UserPreferences | null): void {
    if (!this.known) return;
    if (!this.known.has(room) && this.known.size >= REMEMBERED)
      this.known.delete(this.known.keys().next().value as string);
    this.known.set(room, record);
  }

  async get(room: string): Promise<UserPreferences | null> {
    const hit = this.known?.get(room);
    if (hit !== undefined) return hit;
    const keep = this.known !== undefined && !this.reading.has(room);
    const read = { stale: false };
    if (keep) this.reading.set(room, read);
    try {
      const [row] = await this.readRoom({ oracleDid: this.oracleDid, room });
      const record = row ? toRecord(row.preferences, row.updated_at) : null;
      if (keep && !read.stale) this.remember(room, record);
      return record;
    } finally {
      if (keep) this.reading.delete(room);
    }
  }

  /**
   * Merges a partial update (fields set are replaced, fields set to null removed; `customInstructions` is added
   * to the earlier instructions, see {@link mergeInstructions}), stamps `updatedAt` and returns the merged
   * record. The record is locked for the update, so concurrent updates all land.
   */
  async update(room: string, args: SetUserPreferencesArgs): Promise<UserPreferences> {
    const read = this.reading.get(room);
    if (read) read.stale = true;
    this.known?.delete(room);
    const record = await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('user_preferences')
        .values({ oracle_did: this.oracleDid, room_key: room, preferences: '{}' })
        .onConflict((oc) => oc.columns(['oracle_did', 'room_key']).doNothing())
        .execute();
      const current = await trx
        .selectFrom('user_preferences')
        .select('preferences')
        .where('oracle_did', '=', this.oracleDid)
        .where('room_key', '=', room)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const next: Record<string, unknown> = { ...current.preferences };
      for (const [key, value] of Object.entries(args)) {
        if (value === null) delete next[key];
        else if (value === undefined) continue;
        else if (key === 'customInstructions') {
          const earlier = typeof next[key] === 'string' ? next[key] : undefined;
          const { merged, dropped } = mergeInstructions(earlier, value);
          next[key] = merged;
          if (dropped.length > 0) {
            this.logger?.info(
              { room, dropped: dropped.length },
              'user-preferences: the oldest custom instructions were dropped to stay within the bound',
            );
          }
        } else next[key] = value;
      }
      const row = await trx
        .updateTable('user_preferences')
        .set({ preferences: JSON.stringify(next), updated_at: sql`now()` })
        .where('oracle_did', '=', this.oracleDid)
        .where('room_key', '=', room)
        .returning(['preferences', 'updated_at'])
        .executeTakeFirstOrThrow();
      return toRecord(row.preferences, row.updated_at);
    });
    this.remember(room, record);
    return record;
  }
}

/** The stored fields as the contract's record; a field that no longer validates is left out. */
function toRecord(preferences: Record<string, unknown>, updatedAt: Date): UserPreferences {
  const record: Record<string, unknown> = { updatedAt: updatedAt.toISOString() };
  for (const [key, value] of Object.entries(preferences)) {
    const field = UserPreferences.shape[key as keyof typeof UserPreferences.shape];
    if (field && key !== 'updatedAt' && field.safeParse(value).success) record[key] = value;
  }
  return UserPreferences.parse(record);
}
