import { loadConfig } from '../../server/config.js';
import { migrateToLatest, openDb } from '../../server/db/index.js';
import { dbTargetFromConfig } from '../../server/db/target.js';

/** `npm run db:migrate`: runs pending migrations on the configured database (PostgreSQL or PGlite). */
const config = loadConfig(process.env);
const db = await openDb(dbTargetFromConfig(config));
try {
  const { results = [] } = await migrateToLatest(db);
  for (const r of results) console.log(`${r.status.padEnd(8)} ${r.migrationName}`);
  console.log(
    results.length
      ? `${results.length} migration(s) applied to ${db.kind}.`
      : `Nothing to migrate (${db.kind}).`,
  );
} finally {
  await db.close();
}
