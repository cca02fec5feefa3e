/**
 * `npm run db:migrate`: runs the pending migrations on the database the server's configuration names (`.env`
 * read as `npm start` reads it), fit for a deploy step before the new version starts (MIGRATE_ON_START=false):
 * prints the database, each migration applied, and exits 0; 1 when the configuration is refused, the
 * database cannot be reached or a migration fails (a failed migration leaves the schema as it was).
 *
 *   npm run db:migrate
 */
import { migrateToLatest, openDb } from '../../server/db/index.js';
import { migrations } from '../../server/db/migrations/index.js';
import { describeToolConfig, loadToolConfig } from './lib/tool-config.js';

try {
  const tool = loadToolConfig();
  console.log(describeToolConfig(tool));
  const db = await openDb(
    tool.target.kind === 'postgres'
      ? // A migration may take longer than a request's statement timeout, or wait for another's lock.
        { ...tool.target, poolSize: 1, bounds: { ...tool.target.bounds, statementTimeoutMs: 0 } }
      : tool.target,
  );
  try {
    const { results = [] } = await migrateToLatest(db);
    for (const r of results) console.log(`${r.status.padEnd(8)} ${r.migrationName}`);
    console.log(
      results.length
        ? `${results.length} migration(s) applied.`
        : `Nothing to migrate: the database is up to date (${Object.keys(migrations).length} migrations).`,
    );
  } finally {
    await db.close();
  }
} catch (err) {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  console.error(`db:migrate failed: ${err instanceof Error ? err.message : String(err)}${cause}`);
  process.exitCode = 1;
}
