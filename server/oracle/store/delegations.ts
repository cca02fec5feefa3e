import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { VerifiedToken } from '../auth/token-verifier.js';

/** How many users' last stored delegation this instance remembers. */
const REMEMBERED = 10_000;

/** Stored delegations of users to this oracle, one per (user, oracle) pair: the latest-expiring wins. */
export class DelegationStore {
  /** The delegation this instance last stored per user (its CID), which the row holds or outlives. */
  private readonly stored = new Map<string, string>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly oracleDid: string,
  ) {}

  /**
   * Stores a verified delegation unless the stored one outlives it. Tokens without expiry count as far future.
   * Clients send the same delegation with every turn: one this instance already stored is not written again
   * (rows are only ever replaced by a delegation that lives as long or longer, so writing it would change
   * nothing).
   */
  async put(token: VerifiedToken): Promise<void> {
    if (this.stored.get(token.issuer) === token.cid) return;
    const expiresAt = new Date(token.expiresAt ?? 8.64e15);
    await this.db
      .insertInto('oracle_delegations')
      .values({
        user_did: token.issuer,
        oracle_did: this.oracleDid,
        cid: token.cid,
        serialized: token.serialized,
        expires_at: expiresAt,
      })
      .onConflict((oc) =>
        oc
          .columns(['user_did', 'oracle_did'])
          .doUpdateSet((eb) => ({
            cid: eb.ref('excluded.cid'),
            serialized: eb.ref('excluded.serialized'),
            expires_at: eb.ref('excluded.expires_at'),
            stored_at: new Date(),
          }))
          .where('oracle_delegations.expires_at', '<=', expiresAt),
      )
      .execute();
    if (this.stored.size >= REMEMBERED) this.stored.delete(this.stored.keys().next().value as string);
    this.stored.set(token.issuer, token.cid);
  }

  async get(userDid: string): Promise<{ serialized: string; expiresAt: Date; cid: string } | undefined> {
    const row = await this.db
      .selectFrom('oracle_delegations')
      .select(['serialized', 'expires_at', 'cid'])
      .where('user_did', '=', userDid)
      .where('oracle_did', '=', this.oracleDid)
      .executeTakeFirst();
    return row && { serialized: row.serialized, expiresAt: row.expires_at, cid: row.cid };
  }
}
