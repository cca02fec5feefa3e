import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/app.js';
import { newOracleKey } from '../helpers/oracle/oracle-app.js';

// Issue 14 item 5: GET /openapi.json describes this deployment; /docs shows it in Swagger UI, offline.

type Doc = { servers: { url: string }[]; paths: Record<string, Record<string, { operationId?: string }>> };

describe('the OpenAPI document served at run time', () => {
  it('has this deployment: servers from the request, chain paths under the prefix and aliases, parts switched off absent', async () => {
    await using t = await startTestApp({
      db: 'none',
      env: {
        ENABLED_PARTS: 'chain',
        CHAIN_ROUTE_PREFIX: 'chain',
        CHAIN_LEGACY_PREFIXES: 'impacthub',
        CHAIN_DISABLED_METHODS: 'ixo.token.v1beta1.Query/Params',
      },
    });
    const res = await t.request.get('/openapi.json').expect(200);
    const doc = res.body as Doc;
    expect(doc.servers).toEqual([{ url: t.url, description: 'This server' }]);
    const paths = Object.keys(doc.paths);
    expect(paths).toContain('/chain/entity/{id}');
    expect(paths).toContain('/impacthub/entity/{id}');
    expect(doc.paths['/impacthub/entity/{id}']?.['get']?.operationId).toBe('Entity_impacthub');
    expect(paths.some((p) => p.startsWith('/ixo/'))).toBe(false);
    expect(paths).not.toContain('/chain/token/params');
    expect(paths).not.toContain('/api/ussd');
    expect(paths).not.toContain('/sessions');
    expect(paths).toContain('/health');
    // A valid OpenAPI document (unique operation ids, resolvable references).
    await SwaggerParser.validate(structuredClone(res.body) as never);
    // What it lists is what the server serves.
    await t.request.get('/impacthub/entity/params').expect(200);
    await t.request.get('/chain/claims/params').expect(200);
  });

  it('takes servers from PUBLIC_BASE_URL, and lists the oracle with only its plugins that are on', async () => {
    await using t = await startTestApp({
      env: {
        ENABLED_PARTS: 'ussd,oracle',
        PUBLIC_BASE_URL: 'https://gateway.example.org',
        ORACLE_SIGNING_KEY: await newOracleKey(),
        REDIS_URL: '',
      },
    });
    const doc = (await t.request.get('/openapi.json').expect(200)).body as Doc;
    expect(doc.servers[0]?.url).toBe('https://gateway.example.org');
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(expect.arrayContaining(['/api/ussd', '/sessions', '/user-preferences']));
    expect(paths).not.toContain('/memory');
    expect(paths).not.toContain('/credits');
    expect(paths.some((p) => p.startsWith('/ixo/'))).toBe(false);
  });

  it('/docs is Swagger UI over /openapi.json with every asset served here (offline)', async () => {
    await using t = await startTestApp({ db: 'none', env: { ENABLED_PARTS: 'chain' } });
    const page = await t.request.get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/')).toBe(true);
      await t.request.get(asset).expect(200);
    }
    expect((await t.request.get('/docs/init.js').expect(200)).text).toContain("url: '/openapi.json'");
  });
});
