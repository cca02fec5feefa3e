import type { AddressInfo } from 'node:net';
import express from 'express';
import { Registry } from 'prom-client';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { createChainPart } from '../../server/chain/part.js';
import { startFixtureNode } from '../../server/chain/fixture-node/fixture-node.js';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { startTestApp } from '../helpers/app.js';
import { TEST_PUBLIC_BASE_URL } from '../helpers/chain/gateway-harness.js';

const ORACLE = 'did:ixo:entity:oracle7d1e3c9a2b';

describe('chain part in the app', () => {
  it('embedded mode: starts the fixture node, whose oracle advertises PUBLIC_BASE_URL', async () => {
    await using app = await startTestApp({
      env: { ENABLED_PARTS: 'chain', PUBLIC_BASE_URL: 'http://oracle.example:3000/' },
    });
    const res = await app.request.get(`/ixo/entity/${ORACLE}/iiddocument`);
    expect(res.status).toBe(200);
    expect((res.body as { iidDocument: { service: unknown[] } }).iidDocument.service).toEqual([
      { id: `${ORACLE}#api`, type: 'oracleService', serviceEndpoint: 'http://oracle.example:3000' },
      { id: `${ORACLE}#ws`, type: 'wsService', serviceEndpoint: 'http://oracle.example:3000' },
    ]);
    expect(res.headers['x-request-id']).toBeTypeOf('string');
    expect((await app.request.get('/ixo/nope')).body).toEqual({
      code: 12,
      message: 'Not Implemented',
      details: [],
    });
    // Outside the chain prefixes the app's own routes and 404 answer.
    expect((await app.request.get('/health')).status).toBe(200);
    expect((await app.request.get('/nothing-here')).status).toBe(404);
  });

  it('regression: on a random port (0) the embedded fixture node advertised http://localhost:0, not the real port', async () => {
    await using app = await startTestApp({ env: { ENABLED_PARTS: 'chain' } });
    const res = await app.request.get(`/ixo/entity/${ORACLE}/iiddocument`);
    expect(res.status).toBe(200);
    const base = `http://localhost:${app.server.port}`;
    expect((res.body as { iidDocument: { service: unknown[] } }).iidDocument.service).toEqual([
      { id: `${ORACLE}#api`, type: 'oracleService', serviceEndpoint: base },
      { id: `${ORACLE}#ws`, type: 'wsService', serviceEndpoint: base },
    ]);
    expect(app.server.port).toBeGreaterThan(0);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });

  it('CHAIN_GRPC_URL mode (part factory alone): queries that node, with the prefix and legacy alias', async () => {
    const node = await startFixtureNode({ publicBaseUrl: TEST_PUBLIC_BASE_URL });
    try {
      const part = await createChainPart({
        config: loadConfig({
          CHAIN_GRPC_URL: node.address,
          CHAIN_ROUTE_PREFIX: 'impacthub',
          CHAIN_LEGACY_PREFIXES: 'ixo',
          CHAIN_DISABLED_METHODS: 'ixo.iid.v1beta1.Query/IidDocuments',
        }),
        logger: createLogger('silent'),
        // The chain part uses neither the database nor Redis.
        db: undefined as never,
        redis: undefined,
        redisPrefix: '',
        metrics: new Registry(),
      });
      const server = express().use(part.router).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const app = { request: supertest(`http://127.0.0.1:${(server.address() as AddressInfo).port}`) };
      await using _cleanup = {
        [Symbol.asyncDispose]: async () => {
          server.closeAllConnections();
          server.close();
          await part.close();
        },
      };
      const before = node.received.length;
      expect((await app.request.get('/impacthub/claims/params')).status).toBe(200);
      expect((await app.request.get('/ixo/claim/claim-0001')).status).toBe(200);
      expect(node.received.slice(before).map((c) => c.method)).toEqual([
        'ixo.claims.v1beta1.Query/Params',
        'ixo.claims.v1beta1.Query/Claim',
      ]);
      expect((await app.request.get('/impacthub/did/dids')).status).toBe(501);
    } finally {
      await node.close();
    }
  });
});
