import type { IncomingMessage, ServerResponse } from 'node:http';
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { Router, type RequestHandler } from 'express';
import { CHAIN_PATH_SHAPES, ChainHeaders, type ChainPathShape } from '../../contracts/chain.js';
import type { MethodName } from '../../generated/proto/chain-descriptor.js';
import type { ChainGatewayConfig } from './config.js';
import { expressUrl, type DirectHandler } from '../http/fast-path.js';
import { runMiddleware } from '../http/run-middleware.js';
import type { Logger } from '../logger.js';
import { bearerGate } from './bearer-gate.js';
import { chainCors } from './chain-cors.js';
import { ChainError } from './chain-error.js';
import { BLOCK_HEIGHT_HEADER, type ChainGrpcClient } from '../chain-node/grpc-client.js';
import { toMethodName } from '../chain-node/grpc-methods.js';
import { buildRequest, parseInput } from './grpc-request.js';
import { toRestJsonText } from './rest-json.js';
import { createRouteMatcher, MalformedPathError, type RouteMatch } from './route-matcher.js';
import { chainRouteTable, type ChainRouteBinding } from './route-table.js';
import { sendJson, sendJsonText } from './send-json.js';

/** The configuration the chain router reads (see ./config.ts). */
export type ChainRouterConfig = Pick<
  ChainGatewayConfig,
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

/** The chain gateway's HTTP side: its Express router and the same answers without Express. */
export interface ChainGateway {
  /** Every route under the chain prefixes, for the app (and for tests, in an app of their own). */
  router: Router;
  /** The Cosmos-shaped 404 for a chain path under a prefix not served (part.ts `notFound`). */
  notFound: RequestHandler;
  /**
   * The same answers as `router` without Express's routing (http/fast-path.ts): a request under a chain
   * prefix, its URL read as Express reads it; a URL that is not origin-form, or with `//` after the prefix
   * (which Express routes in a way of its own), is left to the app.
   */
  direct: DirectHandler;
}

/**
 * The chain query gateway's routes: every contract route under CHAIN_ROUTE_PREFIX and each legacy prefix,
 * answered by its gRPC method through `client`, in Cosmos REST JSON. Anything else under those prefixes
 * (unknown path, other HTTP method) answers 501 `{"code":12,"message":"Not Implemented","details":[]}`;
 * paths outside them fall through to the app. Read-only: GET and HEAD; OPTIONS answers 204 (or the CORS
 * preflight when CORS is open).
 */
export function createChainRouter(options: ChainRouterOptions): Router & { notFound: RequestHandler } {
  const { router, notFound } = createChainGateway(options);
  return Object.assign(router, { notFound });
}

export function createChainGateway(options: ChainRouterOptions): ChainGateway {
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
  const cors = chainCors(config.CHAIN_CORS_ORIGINS);
  const gate = config.CHAIN_REST_TOKEN ? bearerGate(config.CHAIN_REST_TOKEN) : undefined;

  /** Answers a request under a mount; `path` is the part after the prefix (`/entity/…`, `/` for the prefix). */
  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: Record<string, unknown>,
    log: Logger,
  ): void => {
    let found: RouteMatch | undefined;
    try {
      found = match(path);
    } catch (err) {
      if (!(err instanceof MalformedPathError)) throw err;
      send(res, new ChainError(Status.INVALID_ARGUMENT, err.message, { cause: err }));
      return;
    }
    if (found && READ_METHODS.has(req.method ?? '')) {
      serve(req, res, found, query, disabled.has(found.binding.grpc.name), options, log);
    } else if (found && req.method === 'OPTIONS') {
      res.setHeader('Allow', 'GET, HEAD, OPTIONS');
      res.statusCode = 204;
      res.end();
    } else {
      // Unknown path or wrong method: what the Cosmos gateway answers (grpc-gateway ErrUnknownURI).
      send(res, ChainError.notImplemented());
    }
  };

  const router = Router({ caseSensitive: true, strict: true });
  if (cors) router.use(mounts, cors);
  if (gate) router.use(mounts, gate);
  // Express strips the mount, so `req.path` is the part after the prefix (`/entity/…`, `/` for the prefix).
  // The app's request logger, or the router's own when it is mounted without the app's request context (tests).
  router.use(mounts, (req, res) =>
    answer(req, res, req.path, req.query, (res.locals.logger as Logger | undefined) ?? logger),
  );

  const guards = [cors, gate].filter((g) => g !== undefined);
  const direct: DirectHandler = (req, res, start) => {
    const url = req.url?.charCodeAt(0) === SLASH ? expressUrl(req) : undefined;
    const mount = url && mountOf(mounts, url.pathname);
    if (url === undefined || mount === undefined) return false;
    const rest = url.pathname.length === mount.length ? '/' : url.pathname.slice(mount.length);
    if (rest.startsWith('//')) return false;
    const { logger: log } = start(req, res);
    runMiddleware(guards, req, res, (err) => {
      // Express hands a guard's error to the app's error handler; the listener answers a throw the same way.
      if (err !== undefined) throw err as Error;
      answer(req, res, rest, url.query, log);
    });
    return true;
  };

  return { router, notFound: chainShapedNotFound(prefixes, createRouteMatcher(all)), direct };
}

const SLASH = 0x2f;

/** The mount `pathname` is under (`/ixo` for `/ixo` and `/ixo/…`), case-sensitive as the router is. */
function mountOf(mounts: readonly string[], pathname: string): string | undefined {
  for (const mount of mounts) {
    if (
      pathname.startsWith(mount) &&
      (pathname.length === mount.length || pathname.charCodeAt(mount.length) === SLASH)
    ) {
      return mount;
    }
  }
  return undefined;
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
  req: IncomingMessage,
  res: ServerResponse,
  { binding, params }: RouteMatch,
  rawQuery: Record<string, unknown>,
  disabled: boolean,
  { client, config }: ChainRouterOptions,
  log: Logger,
): void {
  const { grpc } = binding;
  let request: unknown;
  let blockHeight: string | undefined;
  try {
    if (disabled) throw ChainError.notImplemented();
    // Each input is parsed once, by the contract's schema; the request is built from the parsed values. No
    // query and no block height parse to nothing, without a schema pass.
    const path = binding.pathParams ? parseInput(binding.pathParams, params) : {};
    const query =
      binding.query && Object.keys(rawQuery).length > 0 ? parseInput(binding.query, rawQuery) : {};
    const height = req.headers[BLOCK_HEIGHT_HEADER];
    if (height !== undefined) {
      blockHeight = parseInput(ChainHeaders, { [BLOCK_HEIGHT_HEADER]: height })[BLOCK_HEIGHT_HEADER];
    }
    request = buildRequest(grpc, path, query);
  } catch (err) {
    fail(res, err, binding, log);
    return;
  }
  client.unary(
    grpc,
    request,
    { timeoutMs: config.CHAIN_GRPC_TIMEOUT_MS, blockHeight },
    (err: ServiceError | null, response, answeredHeight) => {
      if (err) {
        fail(res, err, binding, log);
        return;
      }
      try {
        if (answeredHeight !== undefined) res.setHeader(BLOCK_HEIGHT_HEADER, answeredHeight);
        sendJsonText(res, 200, toRestJsonText(grpc.output, response));
      } catch (caught) {
        fail(res, caught, binding, log);
      }
    },
  );
}

/** Logs a failed query and answers its Cosmos error, unless an answer has begun. */
function fail(res: ServerResponse, err: unknown, binding: ChainRouteBinding, log: Logger): void {
  const error = ChainError.from(err);
  const level = error.httpStatus >= 500 && error.code !== Status.UNIMPLEMENTED ? 'warn' : 'debug';
  log[level]({ err: error.cause ?? error, route: binding.key, code: error.code }, 'chain query failed');
  if (!res.headersSent) send(res, error);
}

function send(res: ServerResponse, error: ChainError): void {
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
