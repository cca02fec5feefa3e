/**
 * `npm run demo`: the real server on embedded defaults (PGlite, the scripted model with the demo's rules in
 * demo/oracle-rules.yaml, the fixture chain node, the credits plugin) and the demo page on Vite's dev server,
 * which proxies the oracle's and the chain gateway's routes (and socket.io) to it. Both on free ports.
 *
 *   npm run demo                      # data in ./data/demo (the oracle's development key, the database)
 *   npm run demo -- --fresh --json    # a new temporary data directory, removed on exit; prints {"url": …}
 *
 * DEMO_PORT sets Vite's port (default: a free one); DEMO_CREDITS the credits of a new user (default 5, one per
 * turn, then the page's paywall). Development only: the page signs its tokens with a published key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createServer as createVite } from 'vite';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { startServer } from '../../server/server.js';

const { values } = parseArgs({
  options: { fresh: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
});

/** The oracle's and the chain gateway's routes, served by the real server behind Vite. */
const PROXIED = '^/(config|models|sessions|messages|runs|delegation|credits|memory|ixo)(/|\\?|$)';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const dataDir = values.fresh
  ? await mkdtemp(path.join(os.tmpdir(), 'oracle-demo-'))
  : path.join(root, 'data', 'demo');
const vitePort = process.env['DEMO_PORT'] ? Number(process.env['DEMO_PORT']) : await freePort();
const origin = `http://127.0.0.1:${vitePort}`;

const config = loadConfig({
  NODE_ENV: 'development',
  LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
  ENABLED_PARTS: 'chain,oracle',
  // Embedded defaults whatever the shell has set: PGlite in the data directory, in-process stores.
  DATABASE_URL: '',
  REDIS_URL: '',
  DATA_DIR: dataDir,
  PGLITE_DATA_DIR: path.join(dataDir, 'pglite'),
  // The fixture chain's oracle entity advertises the page's origin: the SDK resolves it to Vite's proxy.
  PUBLIC_BASE_URL: origin,
  ORACLE_FEATURES: 'credits',
  CREDITS_INITIAL_BALANCE: process.env['DEMO_CREDITS'] ?? '5',
  SCRIPTED_MODEL_RULES: path.join(root, 'demo', 'oracle-rules.yaml'),
  SCRIPTED_MODEL_DELAY_MS: '40',
});
const server = await startServer(config, { port: 0, logger: createLogger(config.LOG_LEVEL, process.stderr) });
const vite = await createVite({
  configFile: path.join(root, 'demo', 'vite.config.ts'),
  mode: 'real',
  logLevel: values.json ? 'warn' : 'info',
  server: {
    host: '127.0.0.1',
    port: vitePort,
    strictPort: true,
    proxy: {
      [PROXIED]: { target: server.url },
      '/socket.io': { target: server.url, ws: true },
    },
  },
});
await vite.listen();

if (values.json) console.log(JSON.stringify({ url: origin, serverUrl: server.url, dataDir }));
else console.log(`\n  demo: ${origin}/  (oracle service ${server.url}, data in ${dataDir})\n`);

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await vite.close();
  await server.close();
  if (values.fresh) await rm(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
