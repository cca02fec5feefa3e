/**
 * Rewrites the plugins table of docs/agent-api.md from the built-in plugins' manifests:
 *
 *   npm run docs:plugins
 *
 * A test fails when the table and the code differ (test/oracle/plugins/plugins-table.test.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { builtInPlugins } from '../../server/oracle/plugins/index.js';
import {
  PLUGINS_TABLE_DOC,
  renderPluginsTable,
  withPluginsTable,
} from '../../server/oracle/plugins/table.js';

const doc = await readFile(PLUGINS_TABLE_DOC, 'utf8');
const next = withPluginsTable(doc, renderPluginsTable(builtInPlugins()));
if (next === doc) console.log(`${PLUGINS_TABLE_DOC} plugins table is up to date`);
else {
  await writeFile(PLUGINS_TABLE_DOC, next);
  console.log(`${PLUGINS_TABLE_DOC} plugins table rewritten`);
}
