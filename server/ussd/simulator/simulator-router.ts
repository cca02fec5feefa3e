import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import type { MenuTree } from '../../../generated/menus.js';
import type { UssdGatewayConfig } from '../config.js';
import { LiveMenus } from '../live-menus.js';
import { createOperatorAuth } from '../../operator-auth.js';
import { projectRoot } from '../../project-root.js';
import { pageHeaders, setHeaders, type HeaderSet } from '../../security-headers.js';

/** Where the page lives: `GET /ussd/simulator` and its files under it. */
const SIMULATOR_PATH = '/ussd/simulator';

// Resolved when a file is served, not when the module loads (a test environment such as jsdom may give
// modules a URL that is not a file: one).
const here = (file: string): string => path.resolve(projectRoot(), 'server/ussd/simulator', file);

/** What the page needs to know of the menus besides the map: the texts of each end, to name it on `END`. */
export interface SimulatorConfig {
  serviceCode: string;
  /** End node id → its texts in every language (with `{placeholders}` as written). */
  ends: Record<string, string[]>;
  /** The goodbye texts (`*`), in every language. */
  goodbye: string[];
  /** Under `npm run dev`: why the last change to the menus was refused (the last good menus still serve). */
  problem?: string;
  /** Under `npm run dev`: which tree is served; the page reloads its map when it changes. */
  version?: number;
}

function simulatorConfig(menus: MenuTree | LiveMenus): SimulatorConfig {
  const live = menus instanceof LiveMenus ? menus : undefined;
  const tree = live?.tree ?? (menus as MenuTree);
  const ends: Record<string, string[]> = {};
  for (const [id, node] of Object.entries(tree.nodes))
    if (node.kind === 'end') ends[id] = Object.values(node.text);
  return {
    serviceCode: '*384*123#',
    ends,
    goodbye: Object.values(tree.system.goodbye),
    ...(live === undefined
      ? {}
      : { version: live.version, ...(live.problem === undefined ? {} : { problem: live.problem }) }),
  };
}

/**
 * The phone simulator in the browser (`GET /ussd/simulator`): a page that talks to `POST /api/ussd` exactly
 * as a telecom gateway does, with the menu map beside the phone (generated/menu-map.svg) and the current
 * screen highlighted (read from the operator endpoint `/api/ussd/debug/:sessionId`). Its script
 * (./page/app.ts) is bundled on the first request with esbuild, in memory: `npm start` serves it with no
 * build step, offline. Open in development; in production it follows the operator-surface rules of
 * `/metrics` (OPERATOR_TOKEN, or a direct loopback connection).
 */
export function createSimulatorRouter(
  config: Pick<UssdGatewayConfig, 'NODE_ENV' | 'OPERATOR_TOKEN'>,
  tree: MenuTree | LiveMenus,
): Router {
  const router = Router();
  // The page and its files: the pages' content security policy (only this server's files, no framing), which
  // lets the menu map's own <style> apply by its hash (the page inserts the SVG into the document).
  let policy: Promise<HeaderSet> | undefined;
  const mapPolicy = async (): Promise<HeaderSet> => {
    const svg = await readFile(here('../../../generated/menu-map.svg'), 'utf8');
    const styles = [...svg.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) =>
      createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64'),
    );
    return pageHeaders({ styleHashes: styles });
  };
  router.use(SIMULATOR_PATH, (_req, res, next) => {
    policy ??= mapPolicy().catch((err: unknown) => {
      policy = undefined;
      throw err;
    });
    policy.then((headers) => {
      setHeaders(res, headers);
      next();
    }, next);
  });
  const guard: RequestHandler =
    config.NODE_ENV === 'production' ? createOperatorAuth(config) : (_req, _res, next) => next();
  let script: Promise<string> | undefined;
  const bundle = async (): Promise<string> => {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [here('./page/app.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2022',
      minify: false,
      legalComments: 'none',
      logLevel: 'silent',
    });
    return result.outputFiles[0]?.text ?? '';
  };
  const send =
    (type: string, load: () => Promise<string>): RequestHandler =>
    (_req, res, next) => {
      load()
        .then((body) => res.type(type).setHeader('cache-control', 'no-cache').send(body))
        .catch(next);
    };

  router.get(
    SIMULATOR_PATH,
    guard,
    send('html', () => readFile(here('./page/index.html'), 'utf8')),
  );
  router.get(
    `${SIMULATOR_PATH}/app.css`,
    guard,
    send('css', () => readFile(here('./page/app.css'), 'utf8')),
  );
  router.get(
    `${SIMULATOR_PATH}/app.js`,
    guard,
    send('js', () => {
      // Bundled once; a failed bundle is retried on the next request.
      script ??= bundle().catch((err: unknown) => {
        script = undefined;
        throw err;
      });
      return script;
    }),
  );
  router.get(
    `${SIMULATOR_PATH}/menu-map.svg`,
    guard,
    send('svg', () => readFile(here('../../../generated/menu-map.svg'), 'utf8')),
  );
  router.get(`${SIMULATOR_PATH}/config.json`, guard, (_req, res) => {
    res.setHeader('cache-control', 'no-cache').json(simulatorConfig(tree));
  });
  return router;
}
