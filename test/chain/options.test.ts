import { describe, expect, it } from 'vitest';
import { FUTURE_HEIGHT_MESSAGE } from '../../server/chain/fixture-node/fixture-node.js';
import { startGateway } from '../helpers/chain/gateway-harness.js';

const NOT_IMPLEMENTED = { code: 12, message: 'Not Implemented', details: [] };

describe('route prefixes (CHAIN_ROUTE_PREFIX, CHAIN_LEGACY_PREFIXES)', () => {
  it('serves the same routes under the prefix and every legacy alias, and nothing under the default', async () => {
    await using gw = await startGateway({
      config: { CHAIN_ROUTE_PREFIX: 'impacthub', CHAIN_LEGACY_PREFIXES: ['ixo-legacy', 'old'] },
    });
    for (const prefix of ['impacthub', 'ixo-legacy', 'old']) {
      const res = await gw.request.get(`/${prefix}/token/params`);
      expect(res.status, prefix).toBe(200);
      expect(res.body).toEqual({ params: { ixo1155_contract_code: '42' } });
      expect((await gw.request.get(`/${prefix}/claim/claim-0001`)).status, `${prefix} legacy shape`).toBe(
        200,
      );
      expect((await gw.request.get(`/${prefix}/nope`)).body).toEqual(NOT_IMPLEMENTED);
    }
    const outside = await gw.request.get('/ixo/token/params');
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ code: 'not_found' });
  });

  it('refuses a prefix that is not a plain path segment', async () => {
    await expect(startGateway({ config: { CHAIN_LEGACY_PREFIXES: ['a/b'] } })).rejects.toThrow(
      'invalid chain route prefix "a/b"',
    );
  });
});

describe('path shapes', () => {
  it('a gateway serving only the legacy shape answers 501 on the current paths of moved routes', async () => {
    await using gw = await startGateway({ shapes: ['legacy'] });
    expect((await gw.request.get('/ixo/claim')).status).toBe(200);
    expect((await gw.request.get('/ixo/claims/claims')).body).toEqual(NOT_IMPLEMENTED);
    // Routes that never moved stay served.
    expect((await gw.request.get('/ixo/claims/params')).status).toBe(200);
    expect((await gw.request.get('/ixo/entity/params')).status).toBe(200);
  });

  it('a gateway serving only the current shape answers 501 on legacy paths', async () => {
    await using gw = await startGateway({ shapes: ['current'] });
    expect((await gw.request.get('/ixo/claims/claims')).status).toBe(200);
    expect((await gw.request.get('/ixo/claim')).body).toEqual(NOT_IMPLEMENTED);
    expect((await gw.request.get('/ixo/token/did:ixo:entity:relayer0a1b2c3d4e')).body).toEqual(
      NOT_IMPLEMENTED,
    );
  });
});

describe('CHAIN_DISABLED_METHODS', () => {
  it('answers 501 code 12 for a disabled method on every path that maps to it, without calling the node', async () => {
    await using gw = await startGateway({
      config: {
        CHAIN_DISABLED_METHODS: [
          'ixo.token.v1beta1.Query/Params',
          '/ixo.claims.v1beta1.Query/ClaimList',
          'bogus',
        ],
      },
    });
    const before = gw.node.received.length;
    for (const path of ['/ixo/token/params', '/ixo/claims/claims', '/ixo/claim']) {
      const res = await gw.request.get(path);
      expect(res.status, path).toBe(501);
      expect(res.body).toEqual(NOT_IMPLEMENTED);
    }
    expect(gw.node.received.length).toBe(before);
    // Same-named methods of other services are not affected.
    expect((await gw.request.get('/ixo/claims/params')).status).toBe(200);
    expect((await gw.request.get('/ixo/entity/params')).status).toBe(200);
  });
});

describe('gated REST (CHAIN_REST_TOKEN)', () => {
  const token = 's3cret-token-value';

  it('401 code 16 without a bearer token, 403 code 7 with a wrong one, 200 with the right one', async () => {
    await using gw = await startGateway({ config: { CHAIN_REST_TOKEN: token } });
    const missing = await gw.request.get('/ixo/token/params');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ code: 16, message: 'missing bearer token', details: [] });
    expect(missing.headers['www-authenticate']).toBe('Bearer');

    const basic = await gw.request.get('/ixo/token/params').set('Authorization', `Basic ${token}`);
    expect(basic.status).toBe(401);

    for (const wrong of ['nope', `${token}x`, token.slice(0, -1)]) {
      const res = await gw.request.get('/ixo/token/params').set('Authorization', `Bearer ${wrong}`);
      expect(res.status, wrong).toBe(403);
      expect(res.body).toEqual({ code: 7, message: 'invalid bearer token', details: [] });
    }

    const right = await gw.request.get('/ixo/token/params').set('Authorization', `Bearer ${token}`);
    expect(right.status).toBe(200);
  });

  it('gates unknown chain paths too, but not the rest of the app', async () => {
    await using gw = await startGateway({ config: { CHAIN_REST_TOKEN: token } });
    expect((await gw.request.get('/ixo/nope')).status).toBe(401);
    expect((await gw.request.get('/api/other')).status).toBe(404);
  });
});

describe('CORS (CHAIN_CORS_ORIGINS)', () => {
  it('is closed by default: no Access-Control-Allow-Origin, even for a preflight', async () => {
    await using gw = await startGateway();
    const res = await gw.request.get('/ixo/token/params').set('Origin', 'https://app.example.org');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await gw.request
      .options('/ixo/token/params')
      .set('Origin', 'https://app.example.org')
      .set('Access-Control-Request-Method', 'GET');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows only the listed origins, and exposes the block height header', async () => {
    await using gw = await startGateway({
      config: { CHAIN_CORS_ORIGINS: ['https://app.example.org'], CHAIN_REST_TOKEN: 't' },
    });
    const preflight = await gw.request
      .options('/ixo/token/params')
      .set('Origin', 'https://app.example.org')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.org');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET,HEAD,OPTIONS');

    const allowed = await gw.request
      .get('/ixo/token/params')
      .set('Origin', 'https://app.example.org')
      .set('Authorization', 'Bearer t');
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.org');
    expect(allowed.headers['access-control-expose-headers']).toBe('x-cosmos-block-height');

    // A gated error still carries the CORS header, so the browser can read it.
    const unauthenticated = await gw.request
      .get('/ixo/token/params')
      .set('Origin', 'https://app.example.org');
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['access-control-allow-origin']).toBe('https://app.example.org');

    const other = await gw.request
      .get('/ixo/token/params')
      .set('Origin', 'https://evil.example.com')
      .set('Authorization', 'Bearer t');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('x-cosmos-block-height is forwarded both ways', () => {
  it('sends the requested height as gRPC metadata and echoes the height the node answered at', async () => {
    await using gw = await startGateway();
    const res = await gw.request.get('/ixo/entity/params').set('x-cosmos-block-height', '1200000');
    expect(res.status).toBe(200);
    expect(res.headers['x-cosmos-block-height']).toBe('1200000');
    expect(gw.node.received.at(-1)).toEqual({
      method: 'ixo.entity.v1beta1.Query/Params',
      blockHeight: '1200000',
    });

    const latest = await gw.request.get('/ixo/entity/params');
    expect(latest.headers['x-cosmos-block-height']).toBe('1204511');
    expect(gw.node.received.at(-1)?.blockHeight).toBeUndefined();
  });

  it("passes the node's refusal of a future height through as 400", async () => {
    await using gw = await startGateway();
    const res = await gw.request.get('/ixo/entity/params').set('x-cosmos-block-height', '99999999');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 3, message: FUTURE_HEIGHT_MESSAGE, details: [] });
  });
});
