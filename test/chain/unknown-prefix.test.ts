import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/app.js';

// Issue 14 item 4: an unknown path of the chain's shape (a prefix not served, then one of the chain's route
// paths) answers 404 with the Cosmos body and names the prefixes served; other unknown paths keep the
// project's error body.

describe('a chain-shaped path under a prefix this deployment does not serve', () => {
  it('answers 404 {code: 5, message, details: []} naming the served prefixes; other paths keep the JSON 404', async () => {
    await using t = await startTestApp({
      db: 'none',
      env: { ENABLED_PARTS: 'chain', CHAIN_ROUTE_PREFIX: 'ixo', CHAIN_LEGACY_PREFIXES: 'impacthub' },
    });
    for (const path of ['/cosmos/entity/did:ixo:entity:abc', '/ixo2/claims/claims', '/old/token/params']) {
      const res = await t.request.get(path).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ code: 5, message: expect.any(String), details: [] });
      expect(Number.isInteger(res.body.code)).toBe(true);
      expect(res.body.message).toContain('/ixo');
      expect(res.body.message).toContain('/impacthub');
      expect(res.body.message).toContain(`/${path.split('/')[1]}`);
    }
    // Served prefixes are unchanged: a known route answers, an unknown path under them stays 501 code 12.
    await t.request.get('/ixo/token/params').expect(200);
    await t.request.get('/impacthub/token/params').expect(200);
    expect((await t.request.get('/ixo/nothing/here').expect(501)).body.code).toBe(12);
    // Not of the chain's shape: the project's error body.
    for (const path of ['/nothing', '/api/nothing/here', '/cosmos/nothing']) {
      const res = await t.request.get(path).expect(404);
      expect(res.body).toMatchObject({ code: 'not_found', requestId: expect.any(String) });
    }
  });
});
