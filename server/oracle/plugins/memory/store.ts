import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Memory } from '../../../../contracts/memory.js';
import type { Database } from '../../../db/schema.js';

/** Facts the memory plugin keeps about users of this oracle, per user DID. */
export class MemoryStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly oracleDid: string,
  ) {}

  async remember(userDid: string, content: string, tags: string[] = []): Promise<Memory> {
    const row = await this.db
      .insertInto('memories')
      .values({
        id: `mem_${randomUUID()}`,
        oracle_did: this.oracleDid,
        user_did: userDid,
        content,
        tags: JSON.stringify([...new Set(tags)]),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
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
