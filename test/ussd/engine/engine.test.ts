import { describe, expect, it } from 'vitest';
import { USSD_SESSION_EXPIRED_REPLY } from '../../../contracts/ussd.js';
import { engineDialer, TEST_PHONE } from '../../helpers/engine-dialer.js';

const PRE_MENU = 'CON Welcome to Open Oracles\n1. Know More\n2. Account\n*. Exit';
const KNOW_MORE =
  'Know More\n1. About Open Oracles\n2. Accounts and PINs\n3. Contact support\n0. Back\n*. Exit';
const GOODBYE = 'END Thank you for using Open Oracles. Goodbye!';

describe('USSD engine: menus and navigation (spec A2)', () => {
  it('answers the initial dial with the top menu, and a menu number with its sub-menu, both CON', async () => {
    const d = engineDialer();
    expect(await d.send('')).toBe(PRE_MENU);
    expect(await d.send('1')).toBe(`CON ${KNOW_MORE}`);
    expect(d.session()).toMatchObject({
      state: 'knowMore',
      message: KNOW_MORE,
      isAuthenticated: false,
      processedText: '1',
      phoneNumber: TEST_PHONE,
    });
  });

  it('starts in state preMenu', async () => {
    const d = engineDialer();
    await d.send('');
    expect(d.session()?.state).toBe('preMenu');
    expect(d.session()?.message).toBe(PRE_MENU.slice(4));
  });

  it('re-shows the screen with a notice in front for an unknown option, and for 0 where there is no back', async () => {
    const d = engineDialer();
    await d.send('');
    expect(await d.send('9')).toBe(`CON Invalid choice. Try again.\n\n${PRE_MENU.slice(4)}`);
    expect(await d.send('9*0')).toBe(`CON Invalid choice. Try again.\n\n${PRE_MENU.slice(4)}`);
    expect(await d.send('9*0*1')).toBe(`CON ${KNOW_MORE}`);
    expect(await d.send('9*0*1*7')).toBe(`CON Invalid choice. Try again.\n\n${KNOW_MORE}`);
  });

  it('goes back with 0, through two levels', async () => {
    const d = engineDialer();
    await d.send('');
    await d.send('1');
    expect(await d.send('1*2')).toBe(
      'CON Accounts and PINs\n1. Opening an account\n2. Keeping your PIN safe\n3. Locked accounts\n0. Back\n*. Exit',
    );
    expect(await d.send('1*2*0')).toBe(`CON ${KNOW_MORE}`);
    expect(await d.send('1*2*0*0')).toBe(PRE_MENU);
  });

  it.each([
    ['at the top menu', ['', '*']],
    ['typed after an option (text 1**)', ['', '1', '1**']],
    ['at an input', ['', '2', '2*2', '2*2**']],
  ])('exits with END and removes the session when * is typed %s', async (_, texts) => {
    const d = engineDialer();
    let reply = '';
    for (const text of texts) reply = await d.send(text);
    expect(reply).toBe(GOODBYE);
    expect(d.session()).toBeUndefined();
  });

  it('pages a long text with 98 and 0 (a page ends after a sentence), and refuses 98 on the last page', async () => {
    const d = engineDialer();
    await d.send('');
    const page = (text: string, more = true): string =>
      `${text}\n${more ? '98. More\n' : ''}0. Back\n*. Exit`;
    expect(await d.send('1*1')).toBe(
      `CON ${page('Open Oracles connects you to digital services from any phone, without internet.')}`,
    );
    expect(await d.send('1*1*98')).toBe(
      `CON ${page('Open a free account with your name and a 5-digit PIN.')}`,
    );
    expect(await d.send('1*1*98*98')).toBe(
      `CON ${page('Then log in to see your account details, change your PIN and choose your language.')}`,
    );
    const last = page(
      'Your PIN is stored encrypted and is never shown to anyone, not even to our staff.',
      false,
    );
    expect(await d.send('1*1*98*98*98')).toBe(`CON ${last}`);
    expect(await d.send('1*1*98*98*98*98')).toBe(`CON Invalid choice. Try again.\n\n${last}`);
    expect(await d.send('1*1*98*98*98*98*0')).toContain('CON Then log in to see');
    expect(await d.send('1*1*98*98*98*98*0*0*0*0')).toBe(`CON ${KNOW_MORE}`);
  });

  it('pages Swahili separately (its text is longer)', async () => {
    const d = engineDialer();
    await d.accounts.createCustomer({
      fullName: 'Asha',
      email: null,
      pin: '24680',
      phoneNumber: TEST_PHONE,
      language: 'sw',
    });
    expect(await d.send('')).toBe('CON Karibu Open Oracles\n1. Jifunze Zaidi\n2. Akaunti\n*. Toka');
    expect(await d.send('1*1*98*98*98')).toBe(
      'CON PIN yako huhifadhiwa kwa usimbaji fiche na haionyeshwi kwa mtu yeyote, hata wafanyakazi wetu.\n0. Rudi\n*. Toka',
    );
  });

  it('applies several new inputs that arrive in one request, in order', async () => {
    const d = engineDialer();
    await d.send('');
    expect(await d.send('1*2*3')).toBe(
      'CON After 3 wrong PINs your account is locked to protect it. Call support on 0800 000 000 to unlock it.\n0. Back\n*. Exit',
    );
    expect(d.session()?.processedText).toBe('1*2*3');
  });
});

describe('USSD engine: retries, diverging text and unknown sessions', () => {
  it('answers a retried request with the last reply, without running its action again', async () => {
    const d = engineDialer();
    for (const text of ['', '2', '2*2', '2*2*Jane Doe', '2*2*Jane Doe*00', '2*2*Jane Doe*00*24680'])
      await d.send(text);
    const created = await d.send('2*2*Jane Doe*00*24680*24680');
    expect(created).toMatch(/^CON Account created\. Your customer ID is C\w{8}\./);
    const before = JSON.stringify(d.session());
    expect(await d.send('2*2*Jane Doe*00*24680*24680')).toBe(created);
    expect(JSON.stringify(d.session())).toBe(before);
    expect(d.accounts.calls.filter((c) => c === 'createCustomer')).toHaveLength(1);
    expect(d.accounts.customers.size).toBe(1);
  });

  it('answers a text that does not extend what was processed with the last reply, and changes nothing', async () => {
    const d = engineDialer();
    await d.send('');
    const reply = await d.send('1*2');
    const before = JSON.stringify(d.session());
    expect(await d.send('1')).toBe(reply);
    expect(await d.send('2*1')).toBe(reply);
    expect(JSON.stringify(d.session())).toBe(before);
    expect(await d.send('1*2*0')).toBe(`CON ${KNOW_MORE}`);
  });

  it('answers a PIN typed after expiry with the session-expired END, not as a menu choice (issue 14)', async () => {
    const d = engineDialer();
    // An unknown session with text: nothing applied, no session, no account call beyond none at all.
    for (const text of ['24680', '1*2', '2*2*Jane Doe*00*24680*24680', '1**']) {
      expect(await d.send(text)).toBe(USSD_SESSION_EXPIRED_REPLY);
      expect(d.sessions.size).toBe(0);
    }
    expect(d.accounts.calls).toEqual([]);
    // The next dial starts afresh.
    expect(await d.send('')).toMatch(/^CON Welcome to Open Oracles\n/);
    expect(d.session()).toMatchObject({ state: 'preMenu', processedText: '' });
  });

  it('treats an empty text on a live session as a new dial: top menu, fresh context, logged out', async () => {
    const d = engineDialer();
    await d.send('');
    await d.send('1*2');
    expect(d.session()).toMatchObject({ state: 'knowMoreAccounts', processedText: '1*2' });
    d.sessions.set(
      's1',
      JSON.stringify({
        ...d.session(),
        isAuthenticated: true,
        data: { ...d.session()?.data, customerId: 'C22222222' },
      }),
    );
    expect(await d.send('')).toBe(PRE_MENU);
    expect(d.session()).toMatchObject({ state: 'preMenu', processedText: '', isAuthenticated: false });
    expect(d.session()?.data).toMatchObject({ history: [], form: {}, secrets: {} });
    expect(d.session()?.data['customerId']).toBeUndefined();
    // And the new dial's inputs are read from the top menu.
    expect(await d.send('1')).toBe(`CON ${KNOW_MORE}`);
  });

  it('answers a stored session of another phone number as expired (no borrowed login)', async () => {
    const d = engineDialer();
    await d.send('');
    d.sessions.set(
      's1',
      JSON.stringify({
        ...d.session(),
        isAuthenticated: true,
        data: { ...d.session()?.data, customerId: 'C22222222' },
      }),
    );
    expect(await d.send('1', { phoneNumber: '+254700000999' })).toBe(USSD_SESSION_EXPIRED_REPLY);
    expect(d.session()).toBeUndefined();
    // That phone's dial starts its own session, logged out.
    await d.send('', { phoneNumber: '+254700000999' });
    expect(d.session()).toMatchObject({ phoneNumber: '+254700000999', isAuthenticated: false });
    expect(d.session()?.data['customerId']).toBeUndefined();
  });

  it('answers a stored session that does not fit (an older format, or a node the menus dropped) as expired', async () => {
    const d = engineDialer();
    await d.send('');
    const fresh = d.session();
    d.sessions.set('s1', JSON.stringify({ ...fresh, state: 'removedNode' }));
    expect(await d.send('1')).toBe(USSD_SESSION_EXPIRED_REPLY);
    d.sessions.set('s1', JSON.stringify({ ...fresh, data: { v: 0 } }));
    expect(await d.send('1')).toBe(USSD_SESSION_EXPIRED_REPLY);
    expect(await d.send('')).toMatch(/^CON Welcome/);
    expect(d.session()?.data).toMatchObject({ v: 1, history: [] });
  });
});
