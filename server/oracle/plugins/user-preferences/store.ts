import { sql, type Kysely } from 'kysely';
import {
  CUSTOM_INSTRUCTIONS_MAX,
  UserPreferences,
  type SetUserPreferencesArgs,
} from '../../../../contracts/preferences.js';
import type { Database } from '../../../db/schema.js';
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

/** Preference records, one per room of this oracle, in the database. */
export class PreferencesStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly oracleDid: string,
    private readonly logger?: Logger,
  ) {}

  async get(room: string): Promise<UserPreferences | null> {
    const row = await this.db
      .selectFrom('user_preferences')
      .select(['preferences', 'updated_at'])
      .where('oracle_did', '=', this.oracleDid)
      .where('room_key', '=', room)
      .executeTakeFirst();
    return row ? toRecord(row.preferences, row.updated_at) : null;
  }

  /**
   * Merges a partial update (fields set are replaced, fields set to null removed; `customInstructions` is added
   * to the earlier instructions, see {@link mergeInstructions}), stamps `updatedAt` and returns the merged
   * record. The record is locked for the update, so concurrent updates all land.
   */
  async update(room: string, args: SetUserPreferencesArgs): Promise<UserPreferences> {
    return this.db.transaction().execute(async (trx) => {
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
