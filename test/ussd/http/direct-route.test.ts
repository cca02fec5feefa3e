import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { DirectHandler } from '../../../server/http/fast-path.js';
import type { PartFactory } from '../../../server/part.js';
import type { UssdGatewayConfig } from '../../../server/ussd/config.js';
import { createUssdPart } from '../../../server/ussd/part.js';
import { startTestApp } from '../../helpers/app.js';
import { ussdBody } from '../../helpers/ussd-dialog.js';

// POST /api/ussd is answered before Express routes the request (server/http/fast-path.ts, the USSD part's
// `direct` route); `/api/ussd/` (a trailing slash) still goes through Express's router and ts-rest.
// Every kind of request must get the same answer both ways, byte for byte but the Date header.

interface RawAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

function post(port: number, path: string, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', agent: false, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const headers: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i]!.toLowerCase();
            if (name !== 'date') headers.push([name, res.rawHeaders[i + 1]!]);
          }
          resolve({ status: res.statusCode ?? 0, headers, body: text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();

/** Each case: headers and a body made fresh per path (a session id of its own, so both paths dial anew). */
const CASES: Record<string, (id: string) => [Record<string, string>, string]> = {
  'a JSON dial': (id) => [JSON_TYPE, JSON.stringify(ussdBody({ sessionId: id }))],
  'a form-encoded dial, as Africa’s Talking posts it': (id) => [
    FORM_TYPE,
    form({ ...ussdBody({ sessionId: id }), networkCode: '63902' }),
  ],
  'a dial with a query string': (id) => [JSON_TYPE, JSON.stringify(ussdBody({ sessionId: id }))],
  'text for an unknown session (expired)': (id) => [
    JSON_TYPE,
    JSON.stringify(ussdBody({ sessionId: id, text: '1' })),
  ],
  'malformed JSON': () => [JSON_TYPE, '{"sessionId":'],
  'a body over the size limit': (id) => [
    JSON_TYPE,
    JSON.stringify({ ...ussdBody({ sessionId: id }), pad: 'x'.repeat(5000) }),
  ],
  'a body failing the contract, with a session id': (id) => [
    JSON_TYPE,
    JSON.stringify(ussdBody({ sessionId: id, phoneNumber: 'nope' })),
  ],
  'a body failing the contract, without one': () => [JSON_TYPE, JSON.stringify({ text: '' })],
  'another content type': (id) => [
    { 'content-type': 'text/plain' },
    JSON.stringify(ussdBody({ sessionId: id })),
  ],
  'no body': () => [{}, ''],
};

/** The real USSD part, counting the requests its direct route answers. */
function countingUssdPart(): { factory: PartFactory<UssdGatewayConfig>; paths: string[] } {
  const paths: string[] = [];
  const factory: PartFactory<UssdGatewayConfig> = async (ctx) => {
    const part = await createUssdPart(ctx);
    const handler = part.direct;
    if (handler === undefined) throw new Error('the USSD part has no direct handler');
    const direct: DirectHandler = (req, res, start) => {
      const taken = handler(req, res, start);
      if (taken) paths.push(req.url ?? '');
      return taken;
    };
    return { ...part, direct };
  };
  return { factory, paths };
}

describe('POST /api/ussd answered directly', () => {
  it('answers every kind of request exactly as the Express route does', async () => {
    const counting = countingUssdPart();
    await using t = await startTestApp({
      parts: { ussd: counting.factory },
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '1000', TRUST_PROXY_ENABLED: 'loopback' },
    });
    let n = 0;
    for (const [name, make] of Object.entries(CASES)) {
      const answers: RawAnswer[] = [];
      for (const path of ['/api/ussd', '/api/ussd/']) {
        const [headers, body] = make(`direct-${n}`);
        const query = name.includes('query string') ? '?network=63902' : '';
        // Each request its own client (rate limit budget) and a request id, so the two answers can be equal.
        answers.push(
          await post(
            t.server.port,
            path + query,
            { ...headers, 'x-request-id': `req-${n}`, 'x-forwarded-for': `203.0.113.${n % 250}` },
            body,
          ),
        );
        n++;
      }
      const [direct, routed] = answers as [RawAnswer, RawAnswer];
      const sameId = (a: RawAnswer): RawAnswer => ({
        ...a,
        headers: a.headers.map(([k, v]) => [k, k === 'x-request-id' ? 'id' : v]),
      });
      expect(sameId(direct), name).toEqual(sameId(routed));
      expect(direct.headers.find(([k]) => k === 'x-request-id')?.[1], name).toBe(`req-${n - 2}`);
    }
    // Only the exact path took the direct route; the trailing-slash requests went through Express.
    expect(counting.paths).toEqual(
      Object.keys(CASES).map((name) =>
        name.includes('query string') ? '/api/ussd?network=63902' : '/api/ussd',
      ),
    );
  });

  it('answers the rate limit’s 429 (JSON with the request id) and counts in the same budget as the Express route', async () => {
    await using t = await startTestApp({
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '2' },
    });
    const send = (path: string): Promise<RawAnswer> =>
      post(t.server.port, path, { ...JSON_TYPE, 'x-request-id': 'limited' }, JSON.stringify(ussdBody()));
    expect((await send('/api/ussd')).status).toBe(200);
    expect((await send('/api/ussd/')).status).toBe(200);
    const [direct, routed] = [await send('/api/ussd'), await send('/api/ussd/')];
    expect(direct.status).toBe(429);
    expect(JSON.parse(direct.body)).toEqual({
      code: 'rate_limited',
      message: 'Too many requests from this address; try again in a minute.',
      requestId: 'limited',
    });
    expect(direct).toEqual(routed);
  });
});
