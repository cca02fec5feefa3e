/**
 * `npm run dev`: the server as `npm start` runs it (configuration from the environment and .env), with
 * menus that reload while you work. A change to menus/*.yaml runs the menu generator (as `npm run
 * generate` does: generated/menus.ts and the map) and the server serves the new menus from the next
 * request on, without a restart. Menus the generator refuses are reported here, every problem at its
 * line, and on the simulator page (/ussd/simulator); the last menus that compiled keep serving. A change
 * to an action's TypeScript needs a restart.
 */
import { watch } from 'node:fs';
import path from 'node:path';
import { menuTree } from '../../generated/menus.js';
import { ConfigError, loadConfig } from '../../server/config.js';
import { readDotEnv } from '../../server/env-file.js';
import { createLogger, prettyLogs } from '../../server/logger.js';
import { startServer } from '../../server/server.js';
import { LiveMenus } from '../../server/ussd/live-menus.js';
import { createUssdPart } from '../../server/ussd/part.js';
import { generateMenus } from '../menus/generate-menus.js';
import { REPO_ROOT } from '../lib/repo-root.js';

readDotEnv();
let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
}
const logger = createLogger(config.LOG_LEVEL, undefined, {
  pretty: prettyLogs(config.LOG_FORMAT, config.NODE_ENV, Boolean(process.stdout.isTTY)),
});
const menus = new LiveMenus(menuTree);
const menusDir = path.join(REPO_ROOT, 'menus');

/** Regenerates the menus; a good tree is served at once, a refused one is reported and the last good one kept. */
async function regenerate(): Promise<void> {
  try {
    const { tree } = await generateMenus({
      menusDir,
      outDir: path.join(REPO_ROOT, 'generated'),
      handlers: { dir: path.join(REPO_ROOT, 'server/ussd/actions') },
      map: true,
    });
    menus.replace(tree);
    console.log(`menus reloaded (${Object.keys(tree.nodes).length} nodes)`);
  } catch (err) {
    const problem = err instanceof Error ? err.message : String(err);
    menus.fail(problem);
    console.error(`menus not reloaded; the last good menus still serve:\n${problem}`);
  }
}

const server = await startServer(config, {
  logger,
  parts: { ussd: (ctx) => createUssdPart(ctx, { menus }) },
});
// The generated menus may be older than the YAML: compile once, then on every change.
await regenerate();
let timer: NodeJS.Timeout | undefined;
let running = Promise.resolve();
watch(menusDir, (_event, file) => {
  if (file !== null && !file.endsWith('.yaml')) return;
  clearTimeout(timer);
  // An editor writes a file in several steps: wait until it has finished.
  timer = setTimeout(() => {
    running = running.then(regenerate);
  }, 150);
});
console.log(`watching menus/ — simulator: ${server.url}/ussd/simulator`);

const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
