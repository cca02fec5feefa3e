import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  USSD_INVALID_INPUT_REPLY,
  USSD_SESSION_EXPIRED_REPLY,
  USSD_TEXT_MAX,
} from '../../../contracts/ussd.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { engineMenusPart } from '../../helpers/fixture-menus.js';
import { ussdBody, ussdDialog } from '../../helpers/ussd-dialog.js';

// Sessions as spec section 3 states them (issue 14 item 1), on the real engine and menus over HTTP.
const PRE_MENU = 'CON Welcome to Open Oracles\n1. Know More\n2. Account\n*. Exit';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0' },
    parts: { ussd: engineMenusPart() },
  });
});
afterAll(() => t.close());

const debugStatus = async (sessionId: string): Promise<number> =>
  (await t.request.get(`/api/ussd/debug/${sessionId}`)).status;

describe('sessions as the spec states them', () => {
  it('a PIN typed after expiry was read as a menu choice: now END session expired, nothing applied, the next dial starts afresh', async () => {
    const body = ussdBody({ text: '24680' });
    const res = await t.request.post('/api/ussd').send(body).expect(200);
    expect(res.text).toBe(USSD_SESSION_EXPIRED_REPLY);
    expect(await debugStatus(body.sessionId)).toBe(404);
    // Navigation-looking text is not replayed either.
    const nav = await t.request
      .post('/api/ussd')
      .send({ ...body, text: '1*2' })
      .expect(200);
    expect(nav.text).toBe(USSD_SESSION_EXPIRED_REPLY);
    expect(await debugStatus(body.sessionId)).toBe(404);
    const dial = await t.request
      .post('/api/ussd')
      .send({ ...body, text: '' })
      .expect(200);
    expect(dial.text).toBe(PRE_MENU);
    const debug = await t.request.get(`/api/ussd/debug/${body.sessionId}`).expect(200);
    expect(debug.body.debugInfo.state).toBe('preMenu');
  });

  it('empty text on a live session returned the last screen: now it is a new dial (top menu, fresh context, logged out)', async () => {
    const d = ussdDialog(t.request);
    await d.dial();
    await d.send('1');
    expect(await d.send('2')).toMatch(/^CON Accounts and PINs/);
    expect(await d.dial()).toBe(PRE_MENU);
    const debug = await t.request.get(`/api/ussd/debug/${d.sessionId}`).expect(200);
    expect(debug.body.debugInfo).toMatchObject({
      state: 'preMenu',
      context: { isAuthenticated: false, message: PRE_MENU.slice(4) },
    });
    // The inputs after the new dial are read from the top menu.
    expect(await d.send('1')).toMatch(/^CON Know More/);
  });

  it('a validation END left the session active until its TTL: now every END closes it', async () => {
    const d = ussdDialog(t.request);
    await d.dial();
    await d.send('1');
    expect(await debugStatus(d.sessionId)).toBe(200);
    const tooLong = await t.request
      .post('/api/ussd')
      .send({
        sessionId: d.sessionId,
        serviceCode: '*384*123#',
        phoneNumber: d.phoneNumber,
        text: `1*${'1'.repeat(USSD_TEXT_MAX)}`,
      })
      .expect(200);
    expect(tooLong.text).toBe(USSD_INVALID_INPUT_REPLY);
    expect(await debugStatus(d.sessionId)).toBe(404);
    // The next text for it is told the session expired; a dial starts again.
    expect(await d.send('2')).toBe(USSD_SESSION_EXPIRED_REPLY);
    expect(await d.dial()).toBe(PRE_MENU);
  });

  it('an exit END closes the session, and a retry of it gets the same END', async () => {
    const d = ussdDialog(t.request);
    await d.dial();
    await d.send('1');
    const bye = await d.send('');
    expect(bye).toBe('END Thank you for using Open Oracles. Goodbye!');
    expect(await debugStatus(d.sessionId)).toBe(404);
    expect(await d.resend()).toBe(bye);
    const final = d.text;
    expect(await d.send('1')).toBe(USSD_SESSION_EXPIRED_REPLY);
    // The session-expired answer did not replace the kept final reply.
    const retry = await t.request
      .post('/api/ussd')
      .send({ sessionId: d.sessionId, serviceCode: '*384*123#', phoneNumber: d.phoneNumber, text: final })
      .expect(200);
    expect(retry.text).toBe(bye);
  });
});
