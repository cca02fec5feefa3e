import { describe, expect, it } from 'vitest';
import type { AnyActionHandler } from '../../../server/ussd/engine/action-types.js';
import { engineDialer } from '../../helpers/engine-dialer.js';
import { fixtureTree } from '../../helpers/fixture-menus.js';
import { createInMemoryAccountService } from '../../helpers/in-memory-account-service.js';

/** The golden fixture's compiled tree (test/fixtures/menus/basic), read from its committed output. */
const tree = fixtureTree('basic');

/** signIn: no name (skipped, or reached from the action node) retries with a notice; a name logs in. */
const actions: Record<string, AnyActionHandler> = {
  signIn: (ctx) => {
    if (ctx.input === undefined) return Promise.resolve({ retry: 'hello', params: { who: 'stranger' } });
    ctx.login({ customerId: 'C22222222', fullName: ctx.input, email: null, language: 'en', lockedAt: null });
    return Promise.resolve({ next: 'preMenu', notice: 'hello', params: { who: ctx.input } });
  },
  signOut: (ctx) => {
    ctx.logout();
    return Promise.resolve({ next: 'preMenu' });
  },
};

const dialer = (extra: Record<string, AnyActionHandler> = {}) =>
  engineDialer({ accounts: createInMemoryAccountService(), tree, actions: { ...actions, ...extra } });

const HOME = 'Home\n1. Read\n2. Many choices\n3. Sign in\n5. Quick sign in\n*. Exit';

describe('USSD engine on another compiled tree (the golden fixture)', () => {
  it('pages a menu with many options: 98 to the next page, 0 to the previous, options of any page', async () => {
    const d = dialer();
    await d.send('');
    expect(await d.send('2')).toBe(
      'CON Pick one, dear visitor\n1. The first of many options\n2. The second of many options\n3. The third of many options\n98. More\n0. Back\n*. Exit',
    );
    expect(await d.send('2*98')).toBe(
      'CON Pick one, dear visitor\n4. The fourth of many options\n5. The fifth of many options\n6. The sixth of many options\n0. Back\n*. Exit',
    );
    expect(await d.send('2*98*0')).toContain('\n1. The first of many options\n');
    expect(await d.send('2*98*0*6')).toBe('END Done.');
    expect(d.session()).toBeUndefined();
  });

  it('shows options by audience and runs an action node on entry (it stays on the screen with a notice)', async () => {
    const d = dialer();
    expect(await d.send('')).toBe(`CON ${HOME}`);
    expect(await d.send('5')).toBe(`CON Hello stranger!\n\n${HOME}`);
    expect(d.session()?.state).toBe('preMenu');
    expect(await d.send('5*4')).toBe(`CON Invalid choice.\n\n${HOME}`);
  });

  it('skips an optional input with 00 (the action gets no value), and logs in with a value', async () => {
    const d = dialer();
    await d.send('');
    expect(await d.send('3')).toBe('CON Your name:\n00. Skip\n0. Back\n*. Exit');
    expect(await d.send('3*00')).toBe('CON Hello stranger!\n\nYour name:\n00. Skip\n0. Back\n*. Exit');
    expect(await d.send('3*00*Amina')).toBe(
      'CON Hello Amina!\n\nHome\n1. Read\n2. Many choices\n4. Sign out\n*. Exit',
    );
    expect(d.session()).toMatchObject({ isAuthenticated: true, data: { customerId: 'C22222222', form: {} } });
    expect(await d.send('3*00*Amina*4')).toBe(`CON ${HOME}`);
    expect(d.session()?.isAuthenticated).toBe(false);
  });

  it('goes to a fixed back target (back: preMenu) whatever the history', async () => {
    const d = dialer();
    await d.send('');
    await d.send('2*98');
    expect(await d.send('2*98*0*0')).toBe(`CON ${HOME}`);
  });

  it('cuts a placeholder value to its declared length', async () => {
    const d = dialer();
    await d.send('');
    expect(await d.send('3*Bartholomew Wanjiku')).toBe(
      'CON Hello Bartholomew !\n\nHome\n1. Read\n2. Many choices\n4. Sign out\n*. Exit',
    );
  });

  it('refuses a handler that leads to a node its action does not declare', async () => {
    const d = dialer({ signOut: () => Promise.resolve({ next: 'story' }) });
    await d.send('');
    await d.send('3*Amina');
    await expect(d.send('3*Amina*4')).rejects.toThrow(
      'action "signOut" led to "story", which its next: list does not name',
    );
  });

  it('fails clearly when an action has no handler', async () => {
    const d = engineDialer({ accounts: createInMemoryAccountService(), tree, actions: {} });
    await d.send('');
    await expect(d.send('5')).rejects.toThrow('no handler for action "signIn"');
  });
});
