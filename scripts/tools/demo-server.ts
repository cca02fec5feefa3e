/**
 * `npm run demo`: the real server on embedded defaults (PGlite, the scripted model with the demo's rules in
 * demo/oracle-rules.yaml, the fixture chain node, the credits plugin, the memory plugin whose `remember_fact`
 * waits for the user's approval) and the demo page on Vite's dev server, which proxies the oracle's and the
 * chain gateway's routes (and socket.io) to it. Both on free ports.
 *
 *   npm run demo                      # data in ./data/demo (the oracle's development key, the database)
 *   npm run demo -- --fresh --json    # a new temporary data directory, removed on exit; prints {"url": …}
 *
 * DEMO_PORT sets Vite's port (default: a free one); DEMO_CREDITS the credits of a new user (default 5, one per
 * turn, then the page's paywall). Development only: the page signs its tokens with a published key, and pays
 * through `POST /cosmos/tx/v1beta1/txs` here, which broadcasts its unsigned transaction to the embedded fixture
 * chain node (the only node that accepts one).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createVite, type Plugin } from 'vite';
import { createChainGrpcClient } from '../../server/chain-node/grpc-client.js';
import { createTxQueryClient } from '../../server/chain-node/tx-query-client.js';
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
  ORACLE_FEATURES: 'credits,memory',
  // Saving to memory shapes every later answer: the page asks the user first (issue 37).
  ORACLE_TOOLS_NEED_APPROVAL: 'remember_fact',
  CREDITS_INITIAL_BALANCE: process.env['DEMO_CREDITS'] ?? '5',
  SCRIPTED_MODEL_RULES: path.join(root, 'demo', 'oracle-rules.yaml'),
  SCRIPTED_MODEL_DELAY_MS: '40',
});
const server = await startServer(config, { port: 0, logger: createLogger(config.LOG_LEVEL, process.stderr) });
/**
 * The development broadcast of the page's wallet (demo/src/dev-signer.ts): the Cosmos REST shape `POST
 * /cosmos/tx/v1beta1/txs {tx_bytes, mode}` → `{tx_response}`, passed to the fixture node's BroadcastTx.
 */
function devBroadcast(chainGrpcUrl: string | undefined): Plugin {
  return {
    name: 'demo-dev-broadcast',
    configureServer(dev) {
      dev.middlewares.use('/cosmos/tx/v1beta1/txs', (req: IncomingMessage, res: ServerResponse) => {
        const answer = (status: number, body: unknown): void => {
          res.statusCode = status;
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(body));
        };
        if (req.method !== 'POST' || !chainGrpcUrl)
          return answer(501, { code: 12, message: 'Not Implemented' });
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          void (async () => {
            const chain = createChainGrpcClient({ url: chainGrpcUrl });
            try {
              const { tx_bytes } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
                tx_bytes?: unknown;
              };
              if (typeof tx_bytes !== 'string')
                return answer(400, { code: 3, message: 'tx_bytes is required' });
              const tx = createTxQueryClient(chain, { timeoutMs: 5000 });
              const result = await tx.broadcastTx(Buffer.from(tx_bytes, 'base64'));
              answer(200, { tx_response: result });
            } catch (err) {
              answer(400, { code: 3, message: err instanceof Error ? err.message : String(err) });
            } finally {
              chain.close();
            }
          })();
        });
      });
    },
  };
}

const vite = await createVite({
  plugins: [devBroadcast(server.ctx.chainGrpcUrl)],
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
