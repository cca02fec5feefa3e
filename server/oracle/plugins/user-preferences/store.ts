import { sql, type Kysely } from 'kysely';
import { UserPreferences, type SetUserPreferencesArgs } from '../../../../contracts/preferences.js';
import type { Database } from '../../../db/schema.js';

/** The room a record belongs to: a shared room the request names, else the (user, oracle) pair's own. */
export function roomKey(userDid: string, sharedRoomId: string | undefined): string {
  return sharedRoomId ? `room:${sharedRoomId}` : `pair:${userDid}`;
}

/** Preference records, one per room of this oracle, in the database. */
export class PreferencesStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly oracleDid: string,
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
   * Merges a partial update in one statement (fields set are replaced, fields set to null removed), so
   * concurrent updates of different fields all land; stamps `updatedAt`; returns the merged record.
   */
  async update(room: string, args: SetUserPreferencesArgs): Promise<UserPreferences> {
    const set: Record<string, unknown> = {};
    const cleared: string[] = [];
    for (const [key, value] of Object.entries(args)) {
      if (value === null) cleared.push(key);
      else if (value !== undefined) set[key] = value;
    }
    const row = await this.db
      .insertInto('user_preferences')
      .values({
        oracle_did: this.oracleDid,
        room_key: room,
        preferences: JSON.stringify(set),
      })
      .onConflict((oc) =>
        oc.columns(['oracle_did', 'room_key']).doUpdateSet({
          preferences: sql`(user_preferences.preferences || ${JSON.stringify(set)}::jsonb) - ${sql.val(cleared)}::text[]`,
          updated_at: sql`now()`,
        }),
      )
      .returning(['preferences', 'updated_at'])
      .executeTakeFirstOrThrow();
    return toRecord(row.preferences, row.updated_at);
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
