import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Memory } from '../../../../contracts/memory.js';
import type { Database } from '../../../db/schema.js';
import { countOf, withinQuotas } from '../../store/quota.js';

/** Facts the memory plugin keeps about users of this oracle, per user DID. */
export class MemoryStore {
  /** @param maxPerUser the memories one user may keep (ORACLE_MAX_MEMORIES_PER_USER); 0: no quota. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly oracleDid: string,
    private readonly maxPerUser = 0,
  ) {}

  /** Stores a memory; throws QuotaExceededError (store/quota.ts) when the user has as many as the quota allows. */
  async remember(userDid: string, content: string, tags: string[] = []): Promise<Memory> {
    const quota = {
      name: 'memories' as const,
      limit: this.maxPerUser,
      what: 'memories per user (ORACLE_MAX_MEMORIES_PER_USER); forget one to remember another',
      key: `memories:${this.oracleDid}:${userDid}`,
      count: async (trx: Kysely<Database>) =>
        countOf(
          await trx
            .selectFrom('memories')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('oracle_did', '=', this.oracleDid)
            .where('user_did', '=', userDid)
            .executeTakeFirst(),
        ),
    };
    const row = await withinQuotas(this.db, [quota], (trx) =>
      trx
        .insertInto('memories')
        .values({
          id: `mem_${randomUUID()}`,
          oracle_did: this.oracleDid,
          user_did: userDid,
          content,
          tags: JSON.stringify([...new Set(tags)]),
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
    return toMemory(row);
  }

  /** Newest first; `q` keeps memories whose content contains every word of it, or with a tag equal to it. */
  async list(
    userDid: string,
    options: { q?: string | undefined; limit: number; offset: number },
  ): Promise<{ memories: Memory[]; total: number }> {
    let base = this.db
      .selectFrom('memories')
      .where('oracle_did', '=', this.oracleDid)
      .where('user_did', '=', userDid);
    const q = options.q?.trim();
    if (q) {
      const words = q.toLowerCase().split(/\s+/).slice(0, 8);
      base = base.where((eb) =>
        eb.or([
          eb.and(
            words.map((w) => eb(sql`lower(content)`, 'like', `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)),
          ),
          eb(sql`tags`, '@>', sql`${JSON.stringify([q.toLowerCase()])}::jsonb`),
        ]),
      );
    }
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(options.limit)
        .offset(options.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { memories: rows.map(toMemory), total: Number(count.n) };
  }

  /** False when it is not this user's. */
  async forget(userDid: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('memories')
      .where('id', '=', id)
      .where('oracle_did', '=', this.oracleDid)
      .where('user_did', '=', userDid)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

function toMemory(row: { id: string; content: string; tags: string[]; created_at: Date }): Memory {
  return { id: row.id, content: row.content, tags: row.tags, createdAt: row.created_at.toISOString() };
}
