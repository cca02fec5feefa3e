import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  USSD_INVALID_INPUT_REPLY,
  USSD_SESSION_EXPIRED_REPLY,
  UssdRequest,
} from '../../../contracts/ussd.js';
import { findUnsafeText, isStorableText } from '../../../contracts/unsafe-text.js';
import { SCREEN_MAX, screenLength } from '../../../lib/ussd/screen-layout.js';
import { inject, type InjectedRequest } from '../../helpers/inject.js';
import { loadFlows } from '../../../scripts/tools/lib/ussd-flows/flow-file.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

// Random and malformed requests through the real app (real engine, real accounts on the test database),
// in process. Never a 5xx, never a crash, never a reply outside the USSD grammar or longer than a handset
// shows; and the server still answers a normal session correctly afterwards. RUNS is sized to finish in
// a few seconds here; FUZZ_RUNS raises it for a deeper search (e.g. FUZZ_RUNS=100000 npx vitest run fuzz).
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 3000);
let t: TestApp;
beforeAll(async () => {
  // In-process sessions, as before: the fuzz is about the gateway and the engine (the Redis store has its
  // own tests); the database is the run's (PostgreSQL in CI).
  t = await startTestApp({
    env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '1000000', REDIS_URL: '' },
  });
});
afterAll(() => t.close());

const sessionIds = fc.constantFrom('fz-1', 'fz-2', 'fz-3', 'x'.repeat(100), 'x'.repeat(101), '');
const phones = fc.oneof(
  fc.constantFrom('+254712345678', '+254700000000', '254712345678', '+1', ''),
  fc.string(),
);
const codes = fc.oneof(
  fc.constantFrom('*384*123#', '*1#', '*384*123', '#', '**#'),
  fc.string({ maxLength: 12 }),
);
const menuInput = fc.oneof(
  fc.constantFrom(
    '1',
    '2',
    '3',
    '0',
    '00',
    '98',
    '99',
    '*',
    'Jane Doe',
    '48213',
    '11111',
    'C7K2M9Q4X',
    'a@b.co',
  ),
  fc.stringMatching(/^[0-9]{1,6}$/),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
);
const texts = fc.oneof(
  fc.array(menuInput, { maxLength: 12 }).map((parts) => parts.join('*')),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
);
const field = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: arb }, fc.anything(), fc.constant(undefined));

const bodies = fc.record({
  sessionId: field(sessionIds),
  serviceCode: field(codes),
  phoneNumber: field(phones),
  text: field(texts),
  networkCode: field(fc.string({ maxLength: 20 })),
});

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/xml',
  'application/json; charset=utf-16',
  'multipart/form-data; boundary=zz',
  undefined,
);

/**
 * Texts of the recorded flows (test/flows/*.yaml), which reach every screen of the menus (flows.test.ts
 * checks it), each followed by a little random input. On a session of their own they are answered as an
 * expired session (nothing applied); on the shared fuzz sessions they extend or diverge from live ones.
 */
const flowTexts = [
  ...new Set((await loadFlows()).flatMap((f) => f.steps.map((s) => s.text)).filter((t) => !t.includes('{'))),
];
const deepTexts = fc
  .tuple(fc.constantFrom(...flowTexts), fc.array(menuInput, { maxLength: 3 }))
  .map(([start, more]) => [start, ...more].join('*'));

const validPhones = ['+254712345678', '+254700000001', '+14155550123'];
const validRequest = {
  serviceCode: fc.constantFrom('*384*123#', '*1#', '*384*1*2#'),
  phoneNumber: fc.constantFrom(...validPhones),
};

/**
 * Bodies that pass validation but carry random input: these exercise the engine, not the validator. A few
 * session ids, so requests continue, retry and diverge from each other's sessions; and deep texts on a
 * session of their own, which must get the session-expired END and change nothing.
 */
const validBodies = fc.oneof(
  fc.record({
    ...validRequest,
    sessionId: fc.oneof(fc.constantFrom('fz-1', 'fz-2', 'fz-3'), fc.stringMatching(/^fz-[a-z0-9]{1,2}$/)),
    text: fc.array(menuInput, { maxLength: 10 }).map((parts) => parts.join('*').slice(0, 182)),
  }),
  {
    weight: 2,
    arbitrary: fc.record({
      ...validRequest,
      sessionId: fc.stringMatching(/^fd-[a-z0-9]{10}$/),
      text: deepTexts.map((text) => text.slice(0, 182)),
    }),
  },
);

const requests: fc.Arbitrary<InjectedRequest> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ b: validBodies, form: fc.boolean() }).map(({ b, form }) => ({
      method: 'POST',
      url: '/api/ussd',
      headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
      body: form ? new URLSearchParams(b).toString() : JSON.stringify(b),
    })),
  },
  {
    weight: 4,
    arbitrary: bodies.map((b) => ({
      method: 'POST',
      url: '/api/ussd',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(b),
    })),
  },
  {
    weight: 3,
    arbitrary: bodies.map((b) => ({
      method: 'POST',
      url: '/api/ussd',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(
        Object.entries(b).flatMap(([k, v]) =>
          typeof v === 'string' ? [[k, v]] : v === undefined ? [] : [[k, JSON.stringify(v) ?? '']],
        ),
      ).toString(),
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        ct: contentTypes,
        raw: fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a).toString('latin1')),
          fc.json({ maxDepth: 3 }),
          fc.constant(`{"text":"${'9'.repeat(5000)}"}`),
        ),
      })
      .map(({ ct, raw }) => ({
        method: 'POST',
        url: '/api/ussd',
        ...(ct ? { headers: { 'content-type': ct } } : {}),
        body: raw,
      })),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({ maxLength: 120 })
      .map((id) => ({ method: 'GET', url: `/api/ussd/debug/${encodeURIComponent(id)}` })),
  },
);

function parsedBody(req: InjectedRequest): unknown {
  const type = req.headers?.['content-type'];
  const raw = req.body === undefined ? '' : req.body.toString();
  try {
    if (type?.startsWith('application/json')) return JSON.parse(raw);
    if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(raw));
  } catch {
    return undefined;
  }
  return undefined;
}

describe('fuzzing POST /api/ussd and the debug route', () => {
  it(`${Math.ceil(RUNS / 20)} walks as a gateway sends them (dial, then each accumulated text) through the recorded flows and beyond`, async () => {
    // Deep texts reach deep screens only in order: a session starts with the dial, and text for a session
    // that is not live is answered as expired.
    let walkNo = 0;
    await fc.assert(
      fc.asyncProperty(deepTexts, fc.constantFrom(...validPhones), async (text, phoneNumber) => {
        const sessionId = `fw-${walkNo++}-${Date.now().toString(36)}`;
        const parts = text.split('*');
        const texts = ['', ...parts.map((_, i) => parts.slice(0, i + 1).join('*'))].filter(
          (t) => t.length <= 182,
        );
        for (const step of texts) {
          const res = await inject(t.app, {
            method: 'POST',
            url: '/api/ussd',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ sessionId, serviceCode: '*384*123#', phoneNumber, text: step }),
          });
          expect(res.status).toBe(200);
          expect(res.text).toMatch(/^(CON|END) /);
          // No handset sends a NUL or a lone surrogate: such a text is invalid input (issue 36).
          if (!isStorableText(step)) {
            expect(res.text).toBe(USSD_INVALID_INPUT_REPLY);
            break;
          }
          expect(res.text).not.toBe(USSD_INVALID_INPUT_REPLY);
          expect(res.text, `a live walk at "${step}"`).not.toBe(USSD_SESSION_EXPIRED_REPLY);
          expect(screenLength(res.text), res.text).toBeLessThanOrEqual(SCREEN_MAX);
          if (res.text.startsWith('END ')) break;
        }
      }),
      { numRuns: Math.ceil(RUNS / 20) },
    );
  });

  it(`${RUNS} random and malformed requests: never a 5xx, always the USSD grammar`, async () => {
    let valid = 0;
    await fc.assert(
      fc.asyncProperty(requests, async (req) => {
        const res = await inject(t.app, req);
        expect(res.status).toBeLessThan(500);
        if (req.url.startsWith('/api/ussd/debug/')) {
          expect([200, 400, 404]).toContain(res.status);
          expect(() => JSON.parse(res.text) as unknown).not.toThrow();
          return;
        }
        expect(res.status).toBe(200);
        expect(String(res.headers['content-type'])).toMatch(/^text\/plain/);
        expect(res.text).toMatch(/^(CON|END) /);
        const isValid =
          req.headers?.['content-type']?.startsWith('application/json; charset=utf-16') !== true &&
          UssdRequest.safeParse(parsedBody(req)).success &&
          // No NUL or lone surrogate anywhere in the body (issue 36: the server checks it beside the contract).
          findUnsafeText(parsedBody(req), 'body') === undefined;
        if (isValid) {
          valid++;
          expect(res.text).not.toBe(USSD_INVALID_INPUT_REPLY);
          // The whole reply, `CON `/`END ` included, as a handset counts characters (spec A1, section 8).
          expect(screenLength(res.text), res.text).toBeLessThanOrEqual(SCREEN_MAX);
        } else {
          expect(res.text).toBe(USSD_INVALID_INPUT_REPLY);
        }
      }),
      { numRuns: RUNS },
    );
    // About a third of the requests are valid and reach the engine.
    expect(valid).toBeGreaterThan(RUNS / 5);

    // Still answering correctly afterwards, over a real socket.
    const body = {
      sessionId: 'after-fuzz',
      serviceCode: '*384*123#',
      // A phone the fuzz never used: a fuzzed language choice is kept per phone (Swahili greets differently).
      phoneNumber: '+254799000111',
      text: '',
    };
    const top = await t.request.post('/api/ussd').send(body).expect(200);
    expect(top.text).toMatch(/^CON Welcome/);
    const next = await t.request
      .post('/api/ussd')
      .send({ ...body, text: '1' })
      .expect(200);
    expect(next.text).toMatch(/^CON /);
    expect(next.text).not.toBe(top.text);
    await t.request.get('/health').expect(200);
  }, 120_000);
});
