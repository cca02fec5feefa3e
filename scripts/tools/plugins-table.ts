/**
 * Rewrites the plugins table of README.md from the built-in plugins' manifests:
 *
 *   npm run docs:plugins
 *
 * A test fails when the table and the code differ (test/oracle/plugins-table.test.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { builtInPlugins } from '../../server/oracle/plugins/index.js';
import { renderPluginsTable, withPluginsTable } from '../../server/oracle/plugins/table.js';

const readme = await readFile('README.md', 'utf8');
const next = withPluginsTable(readme, renderPluginsTable(builtInPlugins()));
if (next === readme) console.log('README.md plugins table is up to date');
else {
  await writeFile('README.md', next);
  console.log('README.md plugins table rewritten');
}
