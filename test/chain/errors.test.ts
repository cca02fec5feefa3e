import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureNode } from '../../server/chain/fixture-node/fixture-node.js';
import { startGateway, TEST_PUBLIC_BASE_URL, type Gateway } from '../helpers/chain/gateway-harness.js';

const NOT_IMPLEMENTED = { code: 12, message: 'Not Implemented', details: [] };

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

describe('gRPC status → HTTP status, like grpc-gateway v1.16 HTTPStatusFromCode', () => {
  // The table of shared/facts/chain-rest-conventions.md §3.3, written out independently of the code.
  const table: [number, number][] = [
    [1, 408],
    [2, 500],
    [3, 400],
    [4, 504],
    [5, 404],
    [6, 409],
    [7, 403],
    [8, 429],
    [9, 400],
    [10, 409],
    [11, 400],
    [12, 501],
    [13, 500],
    [14, 503],
    [15, 500],
    [16, 401],
  ];
  it.each(table)('code %i → HTTP %i with {code, message, details}', async (code, http) => {
    gw.node.failNext(code, `node says ${code}`, 'ixo.token.v1beta1.Query/Params');
    const res = await gw.request.get('/ixo/token/params');
    expect(res.status).toBe(http);
    expect(res.body).toEqual({ code, message: `node says ${code}`, details: [] });
  });

  it('NotFound from the keeper for an unknown id is 404 code 5', async () => {
    const res = await gw.request.get('/ixo/entity/did:ixo:entity:nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 5, message: 'entity did:ixo:entity:nope not found', details: [] });
  });
});

describe('unknown routes and methods under the chain prefix: 501 code 12', () => {
  it.each([
    '/ixo',
    '/ixo/',
    '/ixo/nope',
    '/ixo/entity/',
    '/ixo/entity/did:ixo:entity:oracle7d1e3c9a2b/unknown',
    '/ixo/claims/dispute/abc',
    '/ixo/did/did:ixo:abc',
    '/ixo/bonds/bonds',
  ])('GET %s', async (path) => {
    const res = await gw.request.get(path);
    expect(res.status).toBe(501);
    expect(res.body).toEqual(NOT_IMPLEMENTED);
  });

  it.each(['post', 'put', 'patch', 'delete'] as const)('%s on a known route', async (method) => {
    const res = await gw.request[method]('/ixo/entity/params').send({});
    expect(res.status).toBe(501);
    expect(res.body).toEqual(NOT_IMPLEMENTED);
  });

  it('HEAD and OPTIONS are served (read-only gateway)', async () => {
    const head = await gw.request.head('/ixo/token/params');
    expect(head.status).toBe(200);
    expect(head.text).toBeUndefined();
    const options = await gw.request.options('/ixo/token/params');
    expect(options.status).toBe(204);
    expect(options.headers['allow']).toBe('GET, HEAD, OPTIONS');
  });

  it('paths outside the chain prefixes fall through to the rest of the app', async () => {
    for (const path of ['/api/ussd/sessions', '/ixofoo/entity', '/IXO/entity/params', '/']) {
      const res = await gw.request.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual({ code: 'not_found' });
    }
  });
});

describe('bad input is 400 code 3, never a 5xx', () => {
  const long = 'x'.repeat(257);
  it.each([
    ['/ixo/claims/claims?pagination.limit=abc', 'pagination.limit: must be an unsigned 64-bit integer'],
    ['/ixo/claims/claims?pagination.limit=-1', 'pagination.limit: must be an unsigned 64-bit integer'],
    [
      '/ixo/claims/claims?pagination.limit=18446744073709551616',
      'pagination.limit: must be an unsigned 64-bit integer',
    ],
    ['/ixo/claims/claims?pagination.offset=1.5', 'pagination.offset: must be an unsigned 64-bit integer'],
    ['/ixo/claims/claims?pagination.key=!!!', 'pagination.key: must be base64'],
    ['/ixo/claims/claims?pagination.key=ab+c', 'pagination.key: must be base64'],
    ['/ixo/claims/claims?pagination.key=abcde', 'pagination.key: must be base64'],
    ['/ixo/claims/claims?pagination.count_total=maybe', 'pagination.count_total: must be true or false'],
    ['/ixo/claims/claims?pagination.reverse=', 'pagination.reverse: must be true or false'],
    [
      '/ixo/claims/claims?pagination.limit=1&pagination.limit=2',
      'pagination.limit: Expected string, received array',
    ],
    [`/ixo/entity/${long}`, 'id: must be at most 256 characters'],
    [`/ixo/token/minter/a/${long}`, 'contract_address: must be at most 256 characters'],
    ['/ixo/entity/%E0%A4%A', 'malformed request path or query'],
    ['/ixo/entity/%FF', 'malformed request path or query'],
  ])('GET %s', async (path, message) => {
    const res = await gw.request.get(path);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 3, message, details: [] });
  });

  it('a bad x-cosmos-block-height header', async () => {
    const res = await gw.request.get('/ixo/token/params').set('x-cosmos-block-height', 'latest');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 3,
      message: 'x-cosmos-block-height: must be a block height',
      details: [],
    });
  });

  it('an id of exactly 256 characters reaches the node', async () => {
    const res = await gw.request.get(`/ixo/entity/${'x'.repeat(256)}`);
    expect(res.status).toBe(404);
  });

  it('ids with encoded slashes, spaces and NUL reach the node as text', async () => {
    for (const id of ['a%2Fb', 'a%20b', '%00']) {
      const res = await gw.request.get(`/ixo/claims/claim/${id}`);
      expect(res.status, id).toBe(404);
      expect((res.body as { code: number }).code).toBe(5);
    }
  });
});

describe('deadline and node availability', () => {
  it('a node slower than CHAIN_GRPC_TIMEOUT_MS → 504 code 4', async () => {
    await using slow = await startGateway({ config: { CHAIN_GRPC_TIMEOUT_MS: 150 } });
    slow.node.stallNext(5000);
    const started = Date.now();
    const res = await slow.request.get('/ixo/entity/params');
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ code: 4, message: 'Deadline exceeded', details: [] });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('node down → 503 code 14 without internal addresses; recovers when the node is back on its port', async () => {
    const node = await startFixtureNode({ publicBaseUrl: TEST_PUBLIC_BASE_URL });
    await using gateway = await startGateway({ node });
    expect((await gateway.request.get('/ixo/token/params')).status).toBe(200);

    await node.close();
    const down = await gateway.request.get('/ixo/token/params');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ code: 14, message: 'chain node unavailable', details: [] });

    const back = await startFixtureNode({
      publicBaseUrl: TEST_PUBLIC_BASE_URL,
      port: node.port,
      data: node.data,
    });
    try {
      let status = 0;
      const deadline = Date.now() + 10_000;
      while (status !== 200 && Date.now() < deadline) {
        status = (await gateway.request.get('/ixo/token/params')).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    } finally {
      await back.close();
    }
  });
});
