import { describe, expect, it } from 'vitest';
import { startTestApp } from '../../helpers/app.js';
import { ussdBody } from '../../helpers/ussd-dialog.js';

// The spec's reply texts (spec A, section 7), asserted as literal text: they are the contract with the
// telecom gateway and its users, not the constants that happen to hold them (a regression test for issue 26:
// the expired-session reply turned into a CON in contracts/ussd.ts passed every test that imported it).

describe('the USSD replies the spec and docs/ussd-gateway.md promise, as literal text', () => {
  it('invalid input: "END Invalid input. Please try again."', async () => {
    await using t = await startTestApp({ env: { ENABLED_PARTS: 'ussd', REDIS_URL: '' } });
    const r = await t.request
      .post('/api/ussd')
      .send(ussdBody({ phoneNumber: '0712345678' }))
      .expect(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.text).toBe('END Invalid input. Please try again.');
  });

  it('a failing database: "END Service temporarily unavailable. Please try again later."', async () => {
    await using t = await startTestApp({ db: 'none', env: { ENABLED_PARTS: 'ussd', REDIS_URL: '' } });
    const r = await t.request.post('/api/ussd').send(ussdBody()).expect(200);
    expect(r.text).toBe('END Service temporarily unavailable. Please try again later.');
  });

  it('text for a session that expired or never started: "END Your session has expired. Please dial again."', async () => {
    await using t = await startTestApp({ env: { ENABLED_PARTS: 'ussd', REDIS_URL: '' } });
    const r = await t.request
      .post('/api/ussd')
      .send(ussdBody({ text: '1' }))
      .expect(200);
    expect(r.text).toBe('END Your session has expired. Please dial again.');
  });

  it('the initial dial: CON with a heading, numbered options and "*. Exit" last', async () => {
    await using t = await startTestApp({ env: { ENABLED_PARTS: 'ussd', REDIS_URL: '' } });
    const r = await t.request.post('/api/ussd').send(ussdBody()).expect(200);
    const lines = r.text.split('\n');
    expect(lines[0]).toMatch(/^CON \S/);
    expect(lines.slice(1, -1).every((l) => /^\d+\. \S/.test(l))).toBe(true);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.at(-1)).toBe('*. Exit');
  });
});
