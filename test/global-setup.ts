import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * When DATABASE_URL or REDIS_URL is set (CI), the servers must answer: a down server fails the run here,
 * with a clear message, instead of tests silently falling back to embedded stores.
 */
export default async function setup(): Promise<void> {
  const databaseUrl = process.env['DATABASE_URL'];
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('select 1');
    } catch (err) {
      throw new Error(`DATABASE_URL is set but PostgreSQL does not answer (${String(err)})`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  const redisUrl = process.env['REDIS_URL'];
  if (redisUrl) {
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000 });
    try {
      await redis.connect();
      await redis.ping();
    } catch (err) {
      throw new Error(`REDIS_URL is set but Redis does not answer (${String(err)})`);
    } finally {
      redis.disconnect();
    }
  }
}
