import { describe, expect, it } from 'vitest';
import { menuTree, type MenuTree } from '../../../generated/menus.js';
import { engineDialer, TEST_PHONE, type EngineDialer } from '../../helpers/engine-dialer.js';
import { ENGINE_MENUS } from '../../helpers/fixture-menus.js';
import type { InMemoryAccountService } from '../../helpers/in-memory-account-service.js';

const ACCOUNT = 'CON Account\n1. Log in\n2. Create an account\n0. Back\n*. Exit';
const NAME = 'Enter your full name:\n0. Back\n*. Exit';
const EMAIL = 'Enter your email address (optional):\n00. Skip\n0. Back\n*. Exit';
const PIN = 'Create a 5-digit PIN:\n0. Back\n*. Exit';
const CONFIRM = 'Enter the PIN again to confirm:\n0. Back\n*. Exit';
const LOGIN_PIN = 'Enter your 5-digit PIN:\n0. Back\n*. Exit';
const SERVICES = 'Services\n1. My account\n2. Change PIN\n3. Language\n4. Log out\n0. Back\n*. Exit';
const TOP = 'Welcome to Open Oracles\n1. Know More\n2. Account\n*. Exit';
const TOP_AUTH = 'Welcome to Open Oracles\n1. Know More\n2. Account\n3. Services\n*. Exit';
const LOCKED =
  'END Your account is locked after 3 wrong PINs. To unlock it, contact support on 0800 000 000.';

/** Action → every node it may lead to, over a whole tree. */
function actionTargets(tree: MenuTree): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const node of Object.values(tree.nodes)) {
    const actions =
      node.kind === 'menu'
        ? node.options.flatMap((o) => (o.action ? [o.action] : []))
        : (node.kind === 'input' || node.kind === 'action') && node.action
          ? [node.action]
          : [];
    for (const a of actions) out.set(a.name, new Set([...(out.get(a.name) ?? []), ...a.targets]));
  }
  return out;
}

// These tests run the real handlers on the engine's fixture menus (test/fixtures/menus/engine), not on
// menus/: a menu author's change touches no test here. The fixture must still fit the handlers.
describe('the engine fixture menus fit the real action handlers', () => {
  it('name only actions of the service, each with every node its handler may lead to', () => {
    const real = actionTargets(menuTree);
    for (const [name, targets] of actionTargets(ENGINE_MENUS)) {
      expect(real.has(name), `fixture action ${name}`).toBe(true);
      // The handler may return any target the service's menus give it: each must be a node here too.
      for (const target of real.get(name) ?? []) {
        expect(ENGINE_MENUS.nodes[target], `${name} → ${target}`).toBeDefined();
        expect(targets, `${name} → ${target}`).toContain(target);
      }
    }
  });
});

/** Sends each input as the next accumulated text; returns every reply. */
async function typeIn(
  d: EngineDialer<InMemoryAccountService>,
  inputs: string[],
  options = {},
): Promise<string[]> {
  const replies: string[] = [];
  let text = '';
  replies.push(await d.send(text, options));
  for (const input of inputs) {
    text = text === '' ? input : `${text}*${input}`;
    replies.push(await d.send(text, options));
  }
  return replies;
}

async function withCustomer(pin = '24680', phoneNumber = '+254711111111') {
  const d = engineDialer();
  const { customerId } = await d.accounts.createCustomer({
    fullName: 'Jane Doe',
    email: null,
    pin,
    phoneNumber,
    language: 'en',
  });
  return { d, customerId };
}

describe('create an account', () => {
  it('asks name, email (skippable), PIN and confirmation, then shows the new customer ID', async () => {
    const d = engineDialer();
    const replies = await typeIn(d, ['2', '2', 'Jane Doe', '00', '24680', '24680']);
    expect(replies.slice(1)).toEqual([
      ACCOUNT,
      `CON ${NAME}`,
      `CON ${EMAIL}`,
      `CON ${PIN}`,
      `CON ${CONFIRM}`,
      'CON Account created. Your customer ID is C22222222. Write it down.\n1. Log in\n0. Back\n*. Exit',
    ]);
    expect(d.accounts.customers.get('C22222222')).toMatchObject({
      fullName: 'Jane Doe',
      email: null,
      pin: '24680',
      language: 'en',
    });
    expect(d.accounts.phones.get(TEST_PHONE)?.customerId).toBe('C22222222');
    // 0 from the result goes to the Account menu, not back into the finished form.
    expect(await d.send('2*2*Jane Doe*00*24680*24680*0')).toBe(ACCOUNT);
  });

  it('keeps an email that is given, and re-prompts for one that is not valid', async () => {
    const d = engineDialer();
    const replies = await typeIn(d, ['2', '2', 'Jane Doe', 'jane@', 'jane@example.org', '24680', '24680']);
    expect(replies[4]).toBe(`CON That email address is not valid.\n\n${EMAIL}`);
    expect(replies[5]).toBe(`CON ${PIN}`);
    expect(d.accounts.customers.get('C22222222')?.email).toBe('jane@example.org');
  });

  it.each(['J', '12345', 'Jane_Doe', 'Jane <b>', 'A'.repeat(61), '  -  '])(
    're-prompts for the invalid name %j',
    async (name) => {
      const d = engineDialer();
      const replies = await typeIn(d, ['2', '2', name]);
      expect(replies[3]).toBe(`CON Use 2 to 60 letters for your name.\n\n${NAME}`);
      expect(d.session()?.state).toBe('createName');
    },
  );

  it("accepts names with apostrophes, hyphens and non-English letters (O'Brien-Wanjiku, Zoë)", async () => {
    for (const name of ["Mary O'Brien-Wanjiku", 'Zoë Ngũgĩ']) {
      const d = engineDialer();
      const replies = await typeIn(d, ['2', '2', name, '00', '24680', '24680']);
      expect(replies[6]).toMatch(/^CON Account created/);
      expect(d.accounts.customers.get('C22222222')?.fullName).toBe(name);
    }
  });

  it.each(['11111', '12345', '54321', '01234', '98765', '12121'])('refuses the weak PIN %s', async (pin) => {
    const d = engineDialer();
    const replies = await typeIn(d, ['2', '2', 'Jane Doe', '00', pin]);
    expect(replies[5]).toBe(`CON That PIN is too easy to guess.\n\n${PIN}`);
  });

  it.each(['1234', '123456', 'abcde'])('refuses the PIN %s that is not 5 digits', async (pin) => {
    const d = engineDialer();
    const replies = await typeIn(d, ['2', '2', 'Jane Doe', '00', pin]);
    expect(replies[5]).toBe(`CON A PIN is exactly 5 digits.\n\n${PIN}`);
  });

  it('asks for the PIN again when the confirmation does not match, and creates nothing', async () => {
    const d = engineDialer();
    const replies = await typeIn(d, ['2', '2', 'Jane Doe', '00', '24680', '24681']);
    expect(replies[6]).toBe(`CON The PINs do not match. Try again.\n\n${PIN}`);
    expect(d.accounts.customers.size).toBe(0);
    expect(d.session()?.data).toMatchObject({ secrets: {} });
    const more = await typeIn(d, ['2', '2', 'Jane Doe', '00', '24680', '24681', '35791', '35791']);
    expect(more[8]).toMatch(/^CON Account created/);
  });

  it('never stores the typed PIN in the session: only a salted hash until the confirmation, then nothing', async () => {
    const d = engineDialer();
    await typeIn(d, ['2', '2', 'Jane Doe', '00', '24680']);
    const waiting = JSON.stringify(d.session());
    expect(waiting).not.toContain('24680');
    expect(d.session()?.data['secrets']).toEqual({ newPin: expect.stringMatching(/^s2\$\d+\$/) });
    await d.send('2*2*Jane Doe*00*24680*24680');
    const after = JSON.stringify(d.session());
    expect(after).not.toContain('24680');
    expect(after).not.toContain('s2$');
    expect(d.session()?.data).toMatchObject({ form: {}, secrets: {} });
  });

  it('writes no input (name, PIN) into the logs', async () => {
    const d = engineDialer();
    await typeIn(d, ['2', '2', 'Jane Doe', '00', '24680', '24680', '1', '1', '24680']);
    expect(d.logs.length).toBeGreaterThan(5);
    const logs = d.logs.join('');
    expect(logs).not.toContain('24680');
    expect(logs).not.toContain('Jane');
  });
});

describe('log in', () => {
  it('offers the account bound to the calling phone, then asks its PIN; Services appears after', async () => {
    const { d, customerId } = await withCustomer('24680', TEST_PHONE);
    const replies = await typeIn(d, ['2', '1', '1', '24680']);
    expect(replies[2]).toBe(
      `CON Log in\n1. Use account ${customerId}\n2. Another customer ID\n0. Back\n*. Exit`,
    );
    expect(replies[3]).toBe(`CON ${LOGIN_PIN}`);
    expect(replies[4]).toBe(`CON You are logged in.\n\n${TOP_AUTH}`);
    expect(d.session()).toMatchObject({ state: 'preMenu', isAuthenticated: true, data: { customerId } });
    expect(await d.send('2*1*1*24680*3')).toBe(`CON ${SERVICES}`);
  });

  it('asks for a customer ID when the phone has no account; a malformed or unknown ID is explained', async () => {
    const { d, customerId } = await withCustomer();
    const replies = await typeIn(d, [
      '2',
      '1',
      'X1',
      'C99999999',
      '24680',
      customerId.toLowerCase(),
      '24680',
    ]);
    const ask = 'Enter your customer ID:\n0. Back\n*. Exit';
    expect(replies[2]).toBe(`CON ${ask}`);
    expect(replies[3]).toBe(`CON A customer ID is C and 8 letters or digits.\n\n${ask}`);
    expect(replies[4]).toBe(`CON ${LOGIN_PIN}`);
    expect(replies[5]).toBe(`CON No account has that customer ID.\n\n${ask}`);
    expect(replies[6]).toBe(`CON ${LOGIN_PIN}`);
    expect(replies[7]).toBe(`CON You are logged in.\n\n${TOP_AUTH}`);
  });

  it('shows the attempts left after a wrong PIN; the third locks the account and ends the session', async () => {
    const { d, customerId } = await withCustomer();
    const replies = await typeIn(d, ['2', '1', customerId, '11111', '22222', '33333']);
    expect(replies[4]).toBe(`CON Wrong PIN. 2 attempt(s) left.\n\n${LOGIN_PIN}`);
    expect(replies[5]).toBe(`CON Wrong PIN. 1 attempt(s) left.\n\n${LOGIN_PIN}`);
    expect(replies[6]).toBe(LOCKED);
    expect(d.session()).toBeUndefined();
    expect(d.accounts.customers.get(customerId)?.lockedAt).toBeInstanceOf(Date);
    // A later session: even the right PIN meets the lock.
    const again = await typeIn(d, ['2', '1', customerId, '24680'], { sessionId: 's2' });
    expect(again[4]).toBe(LOCKED);
  });

  it('a correct PIN after a wrong one logs in (the service resets the count)', async () => {
    const { d, customerId } = await withCustomer();
    const replies = await typeIn(d, ['2', '1', customerId, '11111', '24680']);
    expect(replies[5]).toBe(`CON You are logged in.\n\n${TOP_AUTH}`);
  });
});

describe('services', () => {
  async function loggedIn(language: 'en' | 'sw' = 'en') {
    const d = engineDialer();
    const { customerId } = await d.accounts.createCustomer({
      fullName: 'Jane Doe',
      email: 'jane@example.org',
      pin: '24680',
      phoneNumber: TEST_PHONE,
      language,
    });
    const login = ['2', '1', '1', '24680'];
    await typeIn(d, login);
    return { d, customerId, text: login.join('*') };
  }

  it('shows the account details (name, customer ID, email, language) over two pages', async () => {
    const { d, customerId, text } = await loggedIn();
    expect(await d.send(`${text}*3*1`)).toBe(
      `CON Name: Jane Doe\nCustomer ID: ${customerId}\n98. More\n0. Back\n*. Exit`,
    );
    expect(await d.send(`${text}*3*1*98`)).toBe(
      'CON Email: jane@example.org\nLanguage: English\n0. Back\n*. Exit',
    );
    expect(await d.send(`${text}*3*1*98*0*0`)).toBe(`CON ${SERVICES}`);
  });

  it('changes the PIN after checking the current one; the new PIN logs in afterwards', async () => {
    const { d, customerId, text } = await loggedIn();
    const steps = ['3', '2', '11111', '24680', '13579', '13578', '13579', '13579'];
    let t = text;
    const replies: string[] = [];
    for (const s of steps) replies.push(await d.send((t = `${t}*${s}`)));
    const current = 'Enter your current PIN:\n0. Back\n*. Exit';
    const fresh = 'Enter your new 5-digit PIN:\n0. Back\n*. Exit';
    expect(replies).toEqual([
      `CON ${SERVICES}`,
      `CON ${current}`,
      `CON Wrong PIN. 2 attempt(s) left.\n\n${current}`,
      `CON ${fresh}`,
      'CON Enter the new PIN again to confirm:\n0. Back\n*. Exit',
      `CON The PINs do not match. Try again.\n\n${fresh}`,
      'CON Enter the new PIN again to confirm:\n0. Back\n*. Exit',
      `CON Your PIN has been changed.\n\n${SERVICES}`,
    ]);
    expect(d.accounts.customers.get(customerId)?.pin).toBe('13579');
    expect(JSON.stringify(d.session())).not.toContain('13579');
  });

  it('switches the language now and for the next sessions of this phone', async () => {
    const { d, customerId, text } = await loggedIn();
    expect(await d.send(`${text}*3*3`)).toBe(
      'CON Choose your language\n1. English\n2. Kiswahili\n0. Back\n*. Exit',
    );
    expect(await d.send(`${text}*3*3*2`)).toBe(
      'CON Lugha imewekwa kuwa Kiswahili.\n\nHuduma\n1. Akaunti yangu\n2. Badilisha PIN\n3. Lugha\n4. Toka kwenye akaunti\n0. Rudi\n*. Toka',
    );
    expect(d.accounts.customers.get(customerId)?.language).toBe('sw');
    expect(await d.send('', { sessionId: 'next-day' })).toBe(
      'CON Karibu Open Oracles\n1. Jifunze Zaidi\n2. Akaunti\n*. Toka',
    );
  });

  it('uses the customer’s language from login on, in a session that started in English', async () => {
    const d = engineDialer();
    const { customerId } = await d.accounts.createCustomer({
      fullName: 'Asha',
      email: null,
      pin: '24680',
      phoneNumber: '+254722222222',
      language: 'sw',
    });
    const replies = await typeIn(d, ['2', '1', customerId, '24680']);
    expect(replies[1]).toBe(ACCOUNT);
    expect(replies[4]).toBe(
      'CON Umeingia kwenye akaunti.\n\nKaribu Open Oracles\n1. Jifunze Zaidi\n2. Akaunti\n3. Huduma\n*. Toka',
    );
  });

  it('logs out: back to the top menu without Services', async () => {
    const { d, text } = await loggedIn();
    expect(await d.send(`${text}*3*4`)).toBe(`CON You are logged out.\n\n${TOP}`);
    expect(d.session()).toMatchObject({ isAuthenticated: false, state: 'preMenu' });
    expect(d.session()?.data['customerId']).toBeUndefined();
    expect(await d.send(`${text}*3*4*3`)).toBe(`CON Invalid choice. Try again.\n\n${TOP}`);
  });

  it('locks the account on three wrong current PINs during a PIN change, and logs out', async () => {
    const { d, customerId, text } = await loggedIn();
    await d.send(`${text}*3*2*11111`);
    await d.send(`${text}*3*2*11111*11112`);
    expect(await d.send(`${text}*3*2*11111*11112*11113`)).toBe(LOCKED);
    expect(d.session()).toBeUndefined();
    expect(d.accounts.customers.get(customerId)?.lockedAt).toBeInstanceOf(Date);
  });
});
