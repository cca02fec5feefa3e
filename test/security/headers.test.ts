// Security headers on every response (issue 36 item 5): `X-Content-Type-Options: nosniff` on every part's
// answers, the direct (fast) paths of USSD and the chain included, errors and event streams too; frame
// protection and a content security policy on the two HTML pages (/docs and /ussd/simulator). That the pages
// still work under their policy is checked in Chromium by test/security/csp-pages.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { newOracleKey } from '../helpers/oracle/oracle-app.js';
import { newUser, oracleApi, type OracleUser } from '../helpers/oracle/oracle-client.js';

let t: TestApp;
let user: OracleUser;
let sessionId: string;

beforeAll(async () => {
  t = await startTestApp({
    env: {
      ORACLE_SIGNING_KEY: await newOracleKey(),
      SCRIPTED_MODEL_DELAY_MS: '0',
      OPERATOR_TOKEN: 'o'.repeat(32),
    },
  });
  const config = (await (await fetch(`${t.url}/config`)).json()) as { did: string };
  user = await newUser(config.did);
  sessionId = (await oracleApi(t.url, user).createSession()).sessionId;
});
afterAll(() => t.close());

const USSD_BODY = JSON.stringify({
  sessionId: 'headers-1',
  serviceCode: '*384*123#',
  phoneNumber: '+254700000123',
  text: '',
});

/** Requests of every part: [name, path, init]. */
const requests = (): [string, string, RequestInit][] => [
  [
    'USSD session (direct path)',
    '/api/ussd',
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: USSD_BODY },
  ],
  [
    'USSD session, invalid input',
    '/api/ussd',
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' },
  ],
  ['chain entity (direct path)', '/ixo/entity/did:ixo:entity:oracle7d1e3c9a2b', {}],
  ['chain 404 (direct path)', '/ixo/entity/did:ixo:entity:nope', {}],
  ['chain through Express (a slow URL)', '/ixo/entity/did:ixo:entity:oracle7d1e3c9a2b?a=%zz', {}],
  ['oracle config', '/config', {}],
  ['oracle 401', '/sessions', {}],
  ['oracle sessions', '/sessions', { headers: user.headers }],
  [
    'oracle event stream',
    `/messages/${sessionId}`,
    {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello', stream: true }),
    },
  ],
  ['health', '/health', {}],
  ['root', '/', {}],
  ['metrics', '/metrics', { headers: { authorization: `Bearer ${'o'.repeat(32)}` } }],
  ['openapi.json', '/openapi.json', {}],
  ['docs', '/docs', {}],
  ['docs asset', '/docs/assets/swagger-ui.css', {}],
  ['simulator', '/ussd/simulator', {}],
  ['simulator script', '/ussd/simulator/app.js', {}],
  ['no such route', '/nowhere', {}],
];

describe('security headers on every response', () => {
  it('X-Content-Type-Options: nosniff on every part, fast paths, errors and streams included', async () => {
    const seen: Record<string, string | null> = {};
    for (const [name, path, init] of requests()) {
      const response = await fetch(`${t.url}${path}`, init);
      await response.arrayBuffer();
      seen[`${name} (${response.status})`] = response.headers.get('x-content-type-options');
    }
    expect(Object.values(seen).every((v) => v === 'nosniff')).toBe(true);
    expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((k) => [k, 'nosniff'])));
  });

  it('JSON and text answers may not be framed: X-Frame-Options DENY and frame-ancestors none', async () => {
    for (const path of ['/config', '/health', '/ixo/entity/did:ixo:entity:oracle7d1e3c9a2b']) {
      const response = await fetch(`${t.url}${path}`);
      expect({ path, xfo: response.headers.get('x-frame-options') }).toEqual({ path, xfo: 'DENY' });
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it.each(['/docs', '/ussd/simulator'])(
    '%s: frame protection and a content security policy that allows only its own scripts and styles',
    async (path) => {
      const response = await fetch(`${t.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      const csp = response.headers.get('content-security-policy') ?? '';
      const directives = Object.fromEntries(
        csp.split(';').map((d) => {
          const [name = '', ...values] = d.trim().split(/\s+/);
          return [name, values.join(' ')];
        }),
      );
      expect(directives).toMatchObject({
        'default-src': "'self'",
        'frame-ancestors': "'none'",
        'object-src': "'none'",
        'base-uri': "'self'",
        'script-src': "'self'",
      });
      // No inline or evaluated script: what an injection would need.
      expect(directives['script-src']).not.toMatch(/unsafe/);
    },
  );
});
