import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USSD_INVALID_INPUT_REPLY } from '../../../contracts/ussd.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { scriptedUssdPart } from '../../helpers/scripted-test-engine.js';
import { ussdBody } from '../../helpers/ussd-dialog.js';

// Spec section 7 A, first row: every request that fails validation gets HTTP 200 text/plain
// "END Invalid input. Please try again." — never a 4xx/5xx, never a stack trace.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    db: 'none',
    parts: { ussd: scriptedUssdPart() },
    env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0' },
  });
});
afterAll(() => t.close());

async function expectInvalid(
  send: Promise<{ status: number; text: string; headers: Record<string, string> }>,
) {
  const res = await send;
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  expect(res.text).toBe(USSD_INVALID_INPUT_REPLY);
}

describe('POST /api/ussd validation (spec A1, 7 A)', () => {
  it.each([
    ['phone number without +', { phoneNumber: '254712345678' }],
    ['phone number with letters', { phoneNumber: '+2547abc5678' }],
    ['phone number too long', { phoneNumber: '+1234567890123456' }],
    ['service code without #', { serviceCode: '*384*123' }],
    ['service code not starting with *', { serviceCode: '384*123#' }],
    ['service code with a double *', { serviceCode: '*384**123#' }],
    ['text of 183 characters', { text: '1'.repeat(183) }],
    ['sessionId of 101 characters', { sessionId: 's'.repeat(101) }],
    ['empty sessionId', { sessionId: '' }],
  ])('%s', async (_name, override) => {
    await expectInvalid(t.request.post('/api/ussd').send(ussdBody(override)));
  });

  it('accepts the limits themselves: text of 182, sessionId of 100', async () => {
    const res = await t.request
      .post('/api/ussd')
      .send(ussdBody({ sessionId: 's'.repeat(100), text: '' }))
      .expect(200);
    expect(res.text).toMatch(/^CON /);
    const long = await t.request
      .post('/api/ussd')
      .send(ussdBody({ text: `${'1'.repeat(181)}2` }))
      .expect(200);
    expect(long.text).toBe(`CON You typed ${'1'.repeat(181)}2`);
  });

  it.each(['sessionId', 'serviceCode', 'phoneNumber', 'text'] as const)('missing %s', async (field) => {
    const body: Record<string, string> = ussdBody();
    delete body[field];
    await expectInvalid(t.request.post('/api/ussd').send(body));
  });

  it.each([
    ['a number as text', { text: 1 }],
    ['null phone number', { phoneNumber: null }],
    ['an object as sessionId', { sessionId: { $ne: 1 } }],
    ['an array as serviceCode', { serviceCode: ['*384#'] }],
    ['a boolean as text', { text: false }],
  ])('wrong type: %s', async (_name, override) => {
    await expectInvalid(t.request.post('/api/ussd').send({ ...ussdBody(), ...override }));
  });

  it('malformed JSON', async () => {
    await expectInvalid(
      t.request.post('/api/ussd').set('content-type', 'application/json').send('{"sessionId": "a", "text": '),
    );
  });

  it.each(['null', '"text"', '42', '[]', '[{"sessionId":"a"}]'])(
    'JSON that is not an object: %s',
    async (raw) => {
      await expectInvalid(t.request.post('/api/ussd').set('content-type', 'application/json').send(raw));
    },
  );

  it('an empty body', async () => {
    await expectInvalid(t.request.post('/api/ussd'));
    await expectInvalid(t.request.post('/api/ussd').set('content-type', 'application/json').send(''));
  });

  it('an oversized JSON body (the parser’s 413 becomes the invalid-input reply)', async () => {
    await expectInvalid(t.request.post('/api/ussd').send({ ...ussdBody(), padding: 'x'.repeat(64 * 1024) }));
  });

  it('an oversized form body', async () => {
    await expectInvalid(
      t.request
        .post('/api/ussd')
        .type('form')
        .send({ ...ussdBody(), padding: 'x'.repeat(64 * 1024) }),
    );
  });

  it.each([
    ['text/plain', 'sessionId=a&serviceCode=*384%23&phoneNumber=%2B254712345678&text='],
    ['application/xml', '<ussd><sessionId>a</sessionId></ussd>'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="text"\r\n\r\n1\r\n--x--',
    ],
  ])('unsupported content type %s', async (type, raw) => {
    await expectInvalid(t.request.post('/api/ussd').set('content-type', type).send(raw));
  });

  it('an unsupported charset and a compressed body', async () => {
    await expectInvalid(
      t.request
        .post('/api/ussd')
        .set('content-type', 'application/json; charset=latin9')
        .send(JSON.stringify(ussdBody())),
    );
    await expectInvalid(
      t.request
        .post('/api/ussd')
        .set('content-type', 'application/json')
        .set('content-encoding', 'gzip')
        .send(JSON.stringify(ussdBody())),
    );
  });

  it('nested form fields are not objects (flat parser)', async () => {
    await expectInvalid(
      t.request
        .post('/api/ussd')
        .type('form')
        .send('sessionId[a]=1&serviceCode=*384%23&phoneNumber=%2B254712345678&text='),
    );
  });

  it('a validation failure reveals no details and no stack', async () => {
    const res = await t.request.post('/api/ussd').set('content-type', 'application/json').send('{bad');
    expect(res.text).not.toMatch(/SyntaxError|at |stack|Unexpected/);
  });
});
