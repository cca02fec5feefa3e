import { status as Status } from '@grpc/grpc-js';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { CHAIN_PATH_SHAPES, ChainHeaders, type ChainPathShape } from '../../contracts/chain.js';
import type { MethodName } from '../../generated/proto/chain-descriptor.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { bearerGate } from './bearer-gate.js';
import { chainCors } from './chain-cors.js';
import { ChainError } from './chain-error.js';
import { BLOCK_HEIGHT_HEADER, type ChainGrpcClient } from './grpc-client.js';
import { toMethodName } from './grpc-methods.js';
import { buildRequest, parseInput } from './grpc-request.js';
import { toRestJson } from './rest-json.js';
import { createRouteMatcher, MalformedPathError, type RouteMatch } from './route-matcher.js';
import { chainRouteTable } from './route-table.js';
import { sendJson } from './send-json.js';

/** The configuration the chain router reads (see server/config.ts, "Chain query gateway"). */
export type ChainRouterConfig = Pick<
  Config,
  | 'CHAIN_ROUTE_PREFIX'
  | 'CHAIN_LEGACY_PREFIXES'
  | 'CHAIN_DISABLED_METHODS'
  | 'CHAIN_REST_TOKEN'
  | 'CHAIN_CORS_ORIGINS'
  | 'CHAIN_GRPC_TIMEOUT_MS'
>;

export interface ChainRouterOptions {
  client: ChainGrpcClient;
  config: ChainRouterConfig;
  logger: Logger;
  /**
   * Path shapes served (default both). A test turns one off to play a deployment of another release:
   * with `['legacy']` the routes that moved between releases are served only in their old shape
   * (`/ixo/claim`, not `/ixo/claims/claims`), while routes that never moved stay served.
   */
  shapes?: readonly ChainPathShape[];
}

const PREFIX = /^[a-z0-9][a-z0-9_-]*$/i;
const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * The chain query gateway's routes: every contract route under CHAIN_ROUTE_PREFIX and each legacy prefix,
 * answered by its gRPC method through `client`, in Cosmos REST JSON. Anything else under those prefixes
 * (unknown path, other HTTP method) answers 501 `{"code":12,"message":"Not Implemented","details":[]}`;
 * paths outside them fall through to the app. Read-only: GET and HEAD; OPTIONS answers 204 (or the CORS
 * preflight when CORS is open).
 */
export function createChainRouter(options: ChainRouterOptions): Router & { notFound: RequestHandler } {
  const { config, logger } = options;
  const prefixes = [...new Set([config.CHAIN_ROUTE_PREFIX, ...config.CHAIN_LEGACY_PREFIXES])];
  for (const p of prefixes) {
    if (!PREFIX.test(p)) throw new Error(`invalid chain route prefix ${JSON.stringify(p)}`);
  }
  const mounts = prefixes.map((p) => `/${p}`);
  const disabled = disabledMethods(config.CHAIN_DISABLED_METHODS, logger);
  const shapes = new Set<ChainPathShape>(options.shapes ?? CHAIN_PATH_SHAPES);
  const all = chainRouteTable();
  const moved = new Set(all.filter((b) => b.shape === 'legacy').map((b) => b.grpc.name));
  const table = all.filter((b) => shapes.has(b.shape) || (b.shape === 'current' && !moved.has(b.grpc.name)));
  const match = createRouteMatcher(table);

  const router = Router({ caseSensitive: true, strict: true });
  const cors = chainCors(config.CHAIN_CORS_ORIGINS);
  if (cors) router.use(mounts, cors);
  if (config.CHAIN_REST_TOKEN) router.use(mounts, bearerGate(config.CHAIN_REST_TOKEN));
  // Express strips the mount, so `req.path` is the part after the prefix (`/entity/…`, `/` for the prefix).
  router.use(mounts, (req, res) => {
    let found: RouteMatch | undefined;
    try {
      found = match(req.path);
    } catch (err) {
      if (!(err instanceof MalformedPathError)) throw err;
      send(res, new ChainError(Status.INVALID_ARGUMENT, err.message, { cause: err }));
      return;
    }
    if (found && READ_METHODS.has(req.method)) {
      serve(req, res, found, disabled.has(found.binding.grpc.name), options);
    } else if (found && req.method === 'OPTIONS') {
      res.setHeader('Allow', 'GET, HEAD, OPTIONS');
      res.status(204).end();
    } else {
      // Unknown path or wrong method: what the Cosmos gateway answers (grpc-gateway ErrUnknownURI).
      send(res, ChainError.notImplemented());
    }
  });
  return Object.assign(router, { notFound: chainShapedNotFound(prefixes, createRouteMatcher(all)) });
}

/**
 * For a path no route of the app answered: when it has the chain's shape under a prefix this deployment does
 * not serve (`/cosmos/entity/x`, `/ixo-old/claims/claims`), the Cosmos body `{code: 5, message, details: []}`
 * with 404, naming the prefixes served, so an integrator with the wrong prefix learns the right one. Anything
 * else is passed on (the app's own 404 body).
 */
function chainShapedNotFound(
  prefixes: readonly string[],
  anyRoute: (path: string) => RouteMatch | undefined,
): RequestHandler {
  const served = prefixes.map((p) => `/${p}`).join(', ');
  return (req, res, next) => {
    const slash = req.path.indexOf('/', 1);
    const prefix = slash > 0 ? req.path.slice(1, slash) : '';
    if (!READ_METHODS.has(req.method) || !PREFIX.test(prefix)) return next();
    let shaped: boolean;
    try {
      shaped = anyRoute(req.path.slice(slash)) !== undefined;
    } catch (err) {
      if (!(err instanceof MalformedPathError)) throw err;
      shaped = true;
    }
    if (!shaped) return next();
    send(
      res,
      new ChainError(
        Status.NOT_FOUND,
        `No chain routes under /${prefix}. This deployment serves the chain routes under ${served}.`,
      ),
    );
  };
}

function serve(
  req: Request,
  res: Response,
  { binding, params }: RouteMatch,
  disabled: boolean,
  { client, config, logger }: ChainRouterOptions,
): void {
  const run = async (): Promise<void> => {
    if (disabled) throw ChainError.notImplemented();
    const { grpc } = binding;
    // Each input is parsed once, by the contract's schema; the request is built from the parsed values.
    const path = binding.pathParams ? parseInput(binding.pathParams, params) : {};
    const query = binding.query ? parseInput(binding.query, req.query) : {};
    const headers = parseInput(ChainHeaders, { [BLOCK_HEIGHT_HEADER]: req.headers[BLOCK_HEIGHT_HEADER] });
    const { response, blockHeight } = await client.call(grpc, buildRequest(grpc, path, query), {
      timeoutMs: config.CHAIN_GRPC_TIMEOUT_MS,
      blockHeight: headers[BLOCK_HEIGHT_HEADER],
    });
    if (blockHeight !== undefined) res.setHeader(BLOCK_HEIGHT_HEADER, blockHeight);
    sendJson(res, 200, toRestJson(grpc.output, response));
  };
  run().catch((err: unknown) => {
    const error = ChainError.from(err);
    const log = (res.locals.logger as Logger | undefined) ?? logger;
    const level = error.httpStatus >= 500 && error.code !== Status.UNIMPLEMENTED ? 'warn' : 'debug';
    log[level]({ err: error.cause ?? error, route: binding.key, code: error.code }, 'chain query failed');
    if (!res.headersSent) send(res, error);
  });
}

function send(res: Response, error: ChainError): void {
  sendJson(res, error.httpStatus, error.toBody());
}

function disabledMethods(names: readonly string[], logger: Logger): Set<MethodName> {
  const out = new Set<MethodName>();
  for (const name of names) {
    const method = toMethodName(name);
    if (method) out.add(method);
    else logger.warn({ method: name }, 'CHAIN_DISABLED_METHODS names an unknown method; ignored');
  }
  return out;
}
