import { describe, expect, it } from 'vitest';
import { engineDialer } from '../../helpers/engine-dialer.js';
import { fixtureTree } from '../../helpers/fixture-menus.js';
import { createInMemoryAccountService } from '../../helpers/in-memory-account-service.js';

/** test/fixtures/menus/saved-answers: `save: town` shown as {town} by a later menu and the END, with a pattern. */
const tree = fixtureTree('saved-answers');
const dialer = () => engineDialer({ accounts: createInMemoryAccountService(), tree, actions: {} });

describe('saved answers in later screens, and patterns for free text (YAML only, no action)', () => {
  it('shows the saved answer in a later menu and in the END, squeezed as the check keeps it', async () => {
    const d = dialer();
    await d.send('');
    expect(await d.send('1')).toBe('CON Your town:\n0. Back\n*. Exit');
    expect(await d.send('1*  Dar  es Salaam ')).toBe(
      'CON Weather for Dar es Salaam\n1. Today\n0. Back\n*. Exit',
    );
    expect(await d.send('1*  Dar  es Salaam *1')).toBe('END Weather for Dar es Salaam: sunny');
  });

  it('an answer the pattern refuses shows its notice and stays on the input', async () => {
    const d = dialer();
    await d.send('');
    expect(await d.send('1*N4irobi')).toBe(
      'CON Use letters and spaces only.\n\nYour town:\n0. Back\n*. Exit',
    );
    expect(await d.send('1*N4irobi*Nairobi')).toBe('CON Weather for Nairobi\n1. Today\n0. Back\n*. Exit');
  });

  it('in the account language too', async () => {
    const accounts = createInMemoryAccountService();
    const phoneNumber = '+254700000099';
    await accounts.createCustomer({
      fullName: 'Amina',
      email: null,
      pin: '13579',
      phoneNumber,
      language: 'sw',
    });
    const d = engineDialer({ accounts, tree, actions: {} });
    await d.send('', { phoneNumber });
    expect(await d.send('1*Mombasa*1', { phoneNumber })).toBe('END Hali ya hewa Mombasa: jua');
  });

  it('the top menu forgets saved answers', async () => {
    const d = dialer();
    await d.send('');
    await d.send('1*Nairobi');
    expect(d.session()?.data).toMatchObject({ form: { town: 'Nairobi' } });
    await d.send('1*Nairobi*0*0');
    expect(d.session()?.state).toBe('preMenu');
    expect(d.session()?.data).toMatchObject({ form: {} });
  });
});
