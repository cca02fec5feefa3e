import { readFile } from 'node:fs/promises';
import express from 'express';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { menuTree } from '../../../generated/menus.js';
import { createSimulatorRouter } from '../../../server/ussd/simulator/simulator-router.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

// The page's behaviour in a browser is tested in Chromium by `npm run ussd:e2e` (test/ussd/simulator/page.e2e.ts).
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { ENABLED_PARTS: 'ussd' } });
});
afterAll(() => t.close());

describe('GET /ussd/simulator', () => {
  it('serves the page, its script (bundled on the fly, no build step), its styles, the menu map and the end texts', async () => {
    const page = await t.request
      .get('/ussd/simulator')
      .expect(200)
      .expect('content-type', /text\/html/);
    expect(page.text).toContain('<title>USSD simulator</title>');
    expect(page.text).toContain('src="/ussd/simulator/app.js"');
    const script = await t.request
      .get('/ussd/simulator/app.js')
      .expect(200)
      .expect('content-type', /javascript/);
    expect(script.text).toContain('fetch("/api/ussd"');
    expect(script.text).not.toMatch(/^import /m); // one bundle: nothing more to fetch
    await t.request
      .get('/ussd/simulator/app.css')
      .expect(200)
      .expect('content-type', /text\/css/);
    const map = await t.request
      .get('/ussd/simulator/menu-map.svg')
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => done(null, text));
      })
      .expect(200)
      .expect('content-type', /svg/);
    expect(map.body).toBe(await readFile('generated/menu-map.svg', 'utf8'));
    const config = await t.request.get('/ussd/simulator/config.json').expect(200);
    expect(config.body.ends.accountLocked).toEqual(
      Object.values((menuTree.nodes['accountLocked'] as { text: Record<string, string> }).text),
    );
  });

  it('refers to nothing outside this server (works offline, no CDN)', async () => {
    const page = await t.request.get('/ussd/simulator');
    const script = await t.request.get('/ussd/simulator/app.js');
    for (const text of [page.text, script.text]) expect(text).not.toMatch(/https?:\/\//);
  });
});

describe('in production the page follows the operator-surface rules of /metrics', () => {
  const app = (config: { OPERATOR_TOKEN?: string }) => {
    const a = express();
    a.use(createSimulatorRouter({ NODE_ENV: 'production', OPERATOR_TOKEN: config.OPERATOR_TOKEN }, menuTree));
    return supertest(a);
  };

  it('with OPERATOR_TOKEN: 401 without the bearer token, 200 with it', async () => {
    const a = app({ OPERATOR_TOKEN: 'op-secret-token-123' });
    await a.get('/ussd/simulator').expect(401);
    await a.get('/ussd/simulator/config.json').expect(401);
    await a.get('/ussd/simulator').set('authorization', 'Bearer op-secret-token-123').expect(200);
  });

  it('without it: a direct loopback connection only; through a proxy it does not exist (404)', async () => {
    const a = app({});
    await a.get('/ussd/simulator').expect(200);
    await a.get('/ussd/simulator').set('x-forwarded-for', '203.0.113.9').expect(404);
  });

  it('in development it is open (the gateway it talks to is public anyway)', async () => {
    const a = express();
    a.use(
      createSimulatorRouter({ NODE_ENV: 'development', OPERATOR_TOKEN: 'op-secret-token-123' }, menuTree),
    );
    await supertest(a).get('/ussd/simulator').set('x-forwarded-for', '203.0.113.9').expect(200);
  });
});
