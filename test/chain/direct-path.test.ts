import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestListener } from '../../server/http/fast-path.js';
import { startFixtureNode, type FixtureNode } from '../../server/chain/fixture-node/fixture-node.js';
import type { Part, PartFactory } from '../../server/part.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { TEST_PUBLIC_BASE_URL } from '../helpers/chain/gateway-harness.js';

// The chain gateway answers its queries without Express's routing (part.ts `direct`, http/fast-path.ts).
// Every answer must stay what the Express app gives, byte for byte: each request below is sent, as raw
// bytes on a socket, to two servers over the same running app, one through the HTTP server's listener
// (direct handlers first) and one through the Express app alone, and the two raw answers are compared with
// only the Date header and random request ids blanked. The listener's app is counted, so each test also
// says which requests the direct path took.

const ENTITY = 'did:ixo:entity:oracle7d1e3c9a2b';

/** Two servers over one app: `direct` (the listener the HTTP server runs) and `express` (the app alone). */
interface Pair {
  app: TestApp;
  direct: Server;
  express: Server;
  /** Requests the listener handed to Express. */
  toExpress: { count: number };
  close(): Promise<void>;
}

async function listen(listener: RequestListener): Promise<Server> {
  const server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

async function pair(
  node: FixtureNode,
  env: Record<string, string> = {},
  parts?: Partial<Record<'chain', PartFactory>>,
): Promise<Pair> {
  const app = await startTestApp({
    db: 'none',
    env: { ENABLED_PARTS: 'chain', CHAIN_GRPC_URL: node.address, ...env },
    ...(parts ? { parts } : {}),
  });
  const toExpress = { count: 0 };
  const counted: RequestListener = (req, res) => {
    toExpress.count += 1;
    app.app(req, res);
  };
  const { ctx, parts: running, lifecycle } = app.server;
  const handlers = running.flatMap((part) => (part.direct ? [part.direct] : []));
  const direct = await listen(
    createRequestListener(app.app, { logger: ctx.logger, handlers, lifecycle }, counted),
  );
  const express = await listen(app.app);
  return {
    app,
    direct,
    express,
    toExpress,
    async close() {
      for (const s of [direct, express]) {
        s.closeAllConnections();
        s.close();
      }
      await app.close();
    },
  };
}

/** Sends raw request bytes on a new connection and resolves with the raw answer (headers and body). */
function raw(server: Server, request: string): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const head = /^[A-Z]+ /.exec(request)?.[0].trim();
    const done = (): void => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]);
      const length =
        head === 'HEAD' || status === 204 || status === 304
          ? 0
          : Number(/\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? NaN);
      if (Number.isNaN(length)) return;
      if (Buffer.byteLength(text, 'latin1') >= end + 4 + length) {
        socket.destroy();
        resolve(text);
      }
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      done();
    });
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(request);
  });
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const normalise = (answer: string): string =>
  answer.replace(/\r\nDate: [^\r]+/, '\r\nDate: <date>').replace(UUID, '<uuid>');

/** GET (or `method`) `target` with `headers`, as a client writes it. */
const request = (target: string, headers: Record<string, string> = {}, method = 'GET'): string =>
  `${method} ${target} HTTP/1.1\r\nHost: gateway.test\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

/** Both answers to `req`, normalised, and whether the direct path took it. */
async function both(
  p: Pair,
  req: string,
  before?: () => void,
): Promise<{ direct: string; express: string; tookDirect: boolean }> {
  const count = p.toExpress.count;
  before?.();
  const direct = normalise(await raw(p.direct, req));
  const tookDirect = p.toExpress.count === count;
  before?.();
  const express = normalise(await raw(p.express, req));
  return { direct, express, tookDirect };
}

let node: FixtureNode;
beforeAll(async () => {
  node = await startFixtureNode({ publicBaseUrl: TEST_PUBLIC_BASE_URL });
});
afterAll(() => node.close());

describe('the direct path answers chain queries byte for byte as the Express app does', () => {
  let p: Pair;
  beforeAll(async () => {
    p = await pair(node, { CHAIN_LEGACY_PREFIXES: 'ixo-old' });
  });
  afterAll(() => p.close());

  const taken: [string, string][] = [
    ['an entity', request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'req-1' })],
    ['an entity, no request id (a fresh one)', request(`/ixo/entity/${ENTITY}`)],
    [
      'an entity, a malformed request id (replaced)',
      request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'bad id!' }),
    ],
    ['HEAD of an entity', request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'req-2' }, 'HEAD')],
    ['a percent-encoded DID', request(`/ixo/entity/${encodeURIComponent(ENTITY)}`, { 'x-request-id': 'r' })],
    [
      'a list with pagination',
      request('/ixo/claims/claims?pagination.limit=2&pagination.count_total=true', { 'x-request-id': 'r' }),
    ],
    [
      'a list, the JSON spelling countTotal and an unknown key',
      request('/ixo/claims/claims?pagination.countTotal=1&foo=bar&pagination.reverse=T', {
        'x-request-id': 'r',
      }),
    ],
    [
      'a bad pagination.limit (400, code 3)',
      request('/ixo/claims/claims?pagination.limit=-1', { 'x-request-id': 'r' }),
    ],
    [
      'a pagination.key with + and %-escapes',
      request('/ixo/claims/claims?pagination.key=a%2Bb+c%3D', { 'x-request-id': 'r' }),
    ],
    [
      'a malformed %-escape in a query value (kept as text)',
      request('/ixo/claims/claims?pagination.key=%E0%A4%A', { 'x-request-id': 'r' }),
    ],
    ['a key without =', request('/ixo/claims/claims?pagination.limit', { 'x-request-id': 'r' })],
    ['an empty query', request('/ixo/claims/claims?', { 'x-request-id': 'r' })],
    [
      'a malformed %-escape in the path (400, code 3)',
      request('/ixo/entity/%E0%A4%A', { 'x-request-id': 'r' }),
    ],
    [
      'an unknown entity (404 from the node)',
      request('/ixo/entity/did:ixo:entity:nobody', { 'x-request-id': 'r' }),
    ],
    ['an unknown route under the prefix (501)', request('/ixo/nope', { 'x-request-id': 'r' })],
    ['the prefix alone (501)', request('/ixo', { 'x-request-id': 'r' })],
    ['the prefix and a slash (501)', request('/ixo/', { 'x-request-id': 'r' })],
    ['a trailing slash (501)', request(`/ixo/entity/${ENTITY}/`, { 'x-request-id': 'r' })],
    [
      'POST under the prefix (501)',
      request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r', 'content-length': '0' }, 'POST'),
    ],
    ['OPTIONS of a route (204, Allow)', request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r' }, 'OPTIONS')],
    [
      'a block height (forwarded, echoed)',
      request('/ixo/token/params', { 'x-request-id': 'r', 'x-cosmos-block-height': '42' }),
    ],
    [
      'a bad block height (400)',
      request('/ixo/token/params', { 'x-request-id': 'r', 'x-cosmos-block-height': 'x' }),
    ],
    ['a legacy prefix', request(`/ixo-old/entity/${ENTITY}`, { 'x-request-id': 'r' })],
    ['a legacy path shape', request('/ixo/claim?pagination.limit=1', { 'x-request-id': 'r' })],
  ];
  it.each(taken)('%s', async (_what, req) => {
    const { direct, express, tookDirect } = await both(p, req);
    expect(direct).toBe(express);
    expect(tookDirect).toBe(true);
  });

  it('a gRPC error of the node (code 14 → 503, its message)', async () => {
    const req = request('/ixo/token/params', { 'x-request-id': 'r' });
    const { direct, express, tookDirect } = await both(p, req, () =>
      node.failNext(14, 'node is busy', 'ixo.token.v1beta1.Query/Params'),
    );
    expect(direct).toContain('HTTP/1.1 503 ');
    expect(direct).toBe(express);
    expect(tookDirect).toBe(true);
  });

  // What Express reads in ways of its own is left to it; the answers are the same all the same.
  const left: [string, string][] = [
    ['a path outside the chain prefixes (the app JSON 404)', request('/nope', { 'x-request-id': 'r' })],
    [
      'a chain path under a prefix not served (Cosmos 404)',
      request(`/cosmos/entity/${ENTITY}`, { 'x-request-id': 'r' }),
    ],
    ['the prefix in other case', request(`/IXO/entity/${ENTITY}`, { 'x-request-id': 'r' })],
    ['a prefix that only begins like one', request(`/ixology/entity/${ENTITY}`, { 'x-request-id': 'r' })],
    ['a double slash after the prefix', request(`/ixo//entity/${ENTITY}`, { 'x-request-id': 'r' })],
    ['an absolute URL', request(`http://gateway.test/ixo/entity/${ENTITY}`, { 'x-request-id': 'r' })],
  ];
  // URLs that Express reads in ways of its own, read on the direct path by the same parsers (parseurl, qs).
  const readAsExpressDoes: [string, string][] = [
    ['brackets in the query', request('/ixo/claims/claims?pagination.limit[]=1', { 'x-request-id': 'r' })],
    [
      'encoded brackets in the query',
      request('/ixo/claims/claims?pagination.limit%5B0%5D=1', { 'x-request-id': 'r' }),
    ],
    [
      'a pagination key twice',
      request('/ixo/claims/claims?pagination.limit=1&pagination.limit=2', { 'x-request-id': 'r' }),
    ],
    ['a fragment-like # in the path', request(`/ixo/entity/${ENTITY}#x`, { 'x-request-id': 'r' })],
  ];
  it.each(readAsExpressDoes)('%s: taken, and read as Express reads it', async (_what, req) => {
    const { direct, express, tookDirect } = await both(p, req);
    expect(direct).toBe(express);
    expect(tookDirect).toBe(true);
  });

  it.each(left)('%s: left to Express', async (_what, req) => {
    const { direct, express, tookDirect } = await both(p, req);
    expect(direct).toBe(express);
    expect(tookDirect).toBe(false);
  });

  it('while the server drains, Connection: close on both', async () => {
    p.app.server.lifecycle.draining = true;
    try {
      const { direct, express, tookDirect } = await both(
        p,
        request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r' }),
      );
      expect(direct).toContain('\r\nconnection: close\r\n');
      expect(direct).toBe(express);
      expect(tookDirect).toBe(true);
    } finally {
      p.app.server.lifecycle.draining = false;
    }
  });
});

describe('the bearer gate and CORS on the direct path', () => {
  let gated: Pair;
  let open: Pair;
  let star: Pair;
  beforeAll(async () => {
    [gated, open, star] = await Promise.all([
      pair(node, { CHAIN_REST_TOKEN: 'sesame-sesame-sesame', CHAIN_CORS_ORIGINS: 'https://app.test' }),
      pair(node, { CHAIN_CORS_ORIGINS: 'https://app.test,https://other.test' }),
      pair(node, { CHAIN_CORS_ORIGINS: '*' }),
    ]);
  });
  afterAll(() => Promise.all([gated, open, star].map((x) => x.close())));

  const cases: [string, () => Pair, string][] = [
    [
      'no token: 401, WWW-Authenticate',
      () => gated,
      request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r' }),
    ],
    [
      'a wrong token: 403',
      () => gated,
      request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r', authorization: 'Bearer nope' }),
    ],
    [
      'the token: 200',
      () => gated,
      request(`/ixo/entity/${ENTITY}`, {
        'x-request-id': 'r',
        authorization: 'Bearer sesame-sesame-sesame',
        origin: 'https://app.test',
      }),
    ],
    [
      'an unknown route with the token: 501',
      () => gated,
      request('/ixo/nope', { 'x-request-id': 'r', authorization: 'Bearer sesame-sesame-sesame' }),
    ],
    [
      'a preflight passes the gate',
      () => gated,
      request(
        `/ixo/entity/${ENTITY}`,
        { 'x-request-id': 'r', origin: 'https://app.test', 'access-control-request-method': 'GET' },
        'OPTIONS',
      ),
    ],
    [
      'an allowed origin',
      () => open,
      request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r', origin: 'https://other.test' }),
    ],
    [
      'an origin not allowed',
      () => open,
      request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r', origin: 'https://evil.test' }),
    ],
    ['no origin', () => open, request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r' })],
    [
      'a CORS preflight',
      () => open,
      request(
        `/ixo/entity/${ENTITY}`,
        {
          'x-request-id': 'r',
          origin: 'https://app.test',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-cosmos-block-height',
        },
        'OPTIONS',
      ),
    ],
    [
      'an error answer with CORS',
      () => open,
      request('/ixo/nope', { 'x-request-id': 'r', origin: 'https://app.test' }),
    ],
    [
      'CORS open to all',
      () => star,
      request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r', origin: 'https://any.test' }),
    ],
    [
      'a preflight, CORS open to all',
      () => star,
      request(
        '/ixo/token/params',
        { 'x-request-id': 'r', origin: 'https://any.test', 'access-control-request-method': 'GET' },
        'OPTIONS',
      ),
    ],
  ];
  it.each(cases)('%s', async (_what, which, req) => {
    const { direct, express, tookDirect } = await both(which(), req);
    expect(direct).toBe(express);
    expect(tookDirect).toBe(true);
  });

  it('the answers differ where they should (the comparison can fail)', async () => {
    const ok = await both(
      gated,
      request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r', authorization: 'Bearer sesame-sesame-sesame' }),
    );
    const refused = await both(gated, request(`/ixo/entity/${ENTITY}`, { 'x-request-id': 'r' }));
    expect(ok.direct).toMatch(/^HTTP\/1\.1 200 OK\r\nx-request-id: r\r\n/);
    expect(refused.direct).toMatch(
      /^HTTP\/1\.1 401 Unauthorized\r\nx-request-id: r\r\n(.+\r\n)*WWW-Authenticate: Bearer\r\n/,
    );
    expect(ok.direct).not.toBe(refused.direct);
  });
});

describe('a direct handler that throws is answered like the app error handler', () => {
  let p: Pair;
  beforeAll(async () => {
    const fail = (status?: number): Error => Object.assign(new Error('boom'), status ? { status } : {});
    const router = Router();
    router.get('/boom', () => {
      throw fail();
    });
    router.get('/bad', () => {
      throw fail(400);
    });
    const part = (): Promise<Part> =>
      Promise.resolve({
        name: 'chain',
        router,
        direct: (req, res, start) => {
          if (req.url === '/boom') {
            start(req, res);
            throw fail();
          }
          if (req.url === '/bad') throw fail(400); // before starting the request: the listener starts it
          return false;
        },
        close: () => Promise.resolve(),
      });
    p = await pair(node, {}, { chain: part });
  });
  afterAll(() => p.close());

  it.each([
    ['500 internal, its request id', '/boom', { 'x-request-id': 'r' }, 'HEAD'],
    ['500 internal', '/boom', { 'x-request-id': 'r' }, 'GET'],
    ['a 4xx error: 400 bad_request', '/bad', { 'x-request-id': 'r' }, 'GET'],
    ['a 4xx error, a fresh request id', '/bad', {}, 'GET'],
  ] as const)('%s', async (_what, target, headers, method) => {
    const { direct, express, tookDirect } = await both(p, request(target, headers, method));
    expect(direct).toMatch(/^HTTP\/1\.1 (500|400) /);
    expect(direct).toBe(express);
    expect(tookDirect).toBe(true);
  });
});
