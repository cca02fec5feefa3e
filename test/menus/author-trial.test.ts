import { appendFile, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MenuTree } from '../../generated/menus.js';
import type { LanguageCode } from '../../server/ussd/accounts/accounts.js';
import { generateMenus } from '../../scripts/menus/generate-menus.js';
import { menuTexts, unreached } from '../../scripts/tools/lib/ussd-flows/coverage.js';
import { loadFlows, type FlowFile } from '../../scripts/tools/lib/ussd-flows/flow-file.js';
import { idLikeWords } from '../../scripts/tools/lib/ussd-flows/flow-template.js';
import { replayFlow, type FlowTarget } from '../../scripts/tools/lib/ussd-flows/replay.js';
import { engineDialer } from '../helpers/engine-dialer.js';

// Issue 41, "done when": a menu author's trial on a copy of the menus, as docs/menus.md tells it. A new top
// option with a free-text input, a pattern and the saved answer shown in its END screen, in both
// languages, with YAML alone: the generator accepts it against the real action handlers (no new one), the
// engine serves it, and the recorded flows, updated once as `npm run test:flows -- --update` does, replay.

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

const WEATHER_OPTION = `      - key: 4
        label: { en: Weather, sw: Hali ya hewa }
        next: weatherTown
`;

const WEATHER_FILE = `# Weather: a town typed in letters and spaces, shown back in the END screen.

notices:
  lettersOnly:
    en: Use letters and spaces only.
    sw: Tumia herufi na nafasi tu.

nodes:
  weatherTown:
    type: input
    prompt: { en: 'Your town:', sw: 'Mji wako:' }
    validate: text
    maxLength: 30
    pattern: '[\\p{L} ]+'
    patternNotice: lettersOnly
    save: town
    next: weatherReport

  weatherReport:
    type: end
    text:
      en: 'Weather for {town}: sunny'
      sw: 'Hali ya hewa ya {town}: jua'
`;

/** A copy of menus/ with the weather option, compiled against the real handlers into a temporary folder. */
async function trialTree(): Promise<MenuTree> {
  const root = await mkdtemp(path.join(tmpdir(), 'author-trial-'));
  temps.push(root);
  const menus = path.join(root, 'menus');
  await cp('menus', menus, { recursive: true });
  await appendFile(path.join(menus, 'main.yaml'), WEATHER_OPTION);
  await writeFile(path.join(menus, 'weather.yaml'), WEATHER_FILE);
  const { stubs, tree } = await generateMenus({
    menusDir: menus,
    outDir: path.join(root, 'generated'),
    handlers: { dir: 'server/ussd/actions' },
  });
  expect(stubs).toEqual([]);
  return tree;
}

const tree = await trialTree();

describe('a menu author adds a screen with YAML alone (a copy of menus/)', () => {
  it('works in English, the pattern refusing digits, the saved answer in the END screen', async () => {
    const d = engineDialer({ tree });
    expect(await d.send('')).toMatch(/\n4\. Weather\n\*\. Exit$/);
    expect(await d.send('4')).toBe('CON Your town:\n0. Back\n*. Exit');
    expect(await d.send('4*N4irobi')).toBe(
      'CON Use letters and spaces only.\n\nYour town:\n0. Back\n*. Exit',
    );
    expect(await d.send('4*N4irobi*Dar es Salaam')).toBe('END Weather for Dar es Salaam: sunny');
  });

  it('works in Kiswahili (the language of the phone’s account)', async () => {
    const d = engineDialer({ tree });
    const phoneNumber = '+254700000041';
    await d.accounts.createCustomer({
      fullName: 'Amina Juma',
      email: null,
      pin: '13579',
      phoneNumber,
      language: 'sw',
    });
    expect(await d.send('', { phoneNumber })).toMatch(/\n4\. Hali ya hewa\n\*\. Toka$/);
    expect(await d.send('4*Mombasa 1', { phoneNumber })).toBe(
      'CON Tumia herufi na nafasi tu.\n\nMji wako:\n0. Rudi\n*. Toka',
    );
    expect(await d.send('4*Mombasa 1*Mombasa', { phoneNumber })).toBe('END Hali ya hewa ya Mombasa: jua');
  });

  it('the flows, recorded again once (test:flows -- --update) with a new one for the weather, all replay', async () => {
    const d = engineDialer({ tree });
    const target: FlowTarget = {
      send: ({ sessionId, phoneNumber, text }) => d.send(text, { sessionId, phoneNumber }),
      createAccount: async ({ name, email, pin, phoneNumber, language }) =>
        (
          await d.accounts.createCustomer({
            fullName: name,
            email: email ?? null,
            pin,
            phoneNumber,
            language: (language ?? tree.defaultLanguage) as LanguageCode,
          })
        ).customerId,
      notIds: idLikeWords(menuTexts(tree)),
    };
    const weather: FlowFile = {
      description: 'Weather: a town with a digit is refused, then shown back',
      accounts: [],
      steps: ['', '4', '4*N4irobi', '4*N4irobi*Nairobi'].map((text) => ({
        text,
        expect: '',
        session: 'main',
        phone: 'caller',
      })),
    };
    const flows: FlowFile[] = [...(await loadFlows()), weather];
    const updated = await Promise.all(flows.map(async (f) => (await replayFlow(f, target)).recorded));
    const again = await Promise.all(updated.map((f) => replayFlow(f, target)));
    expect(again.filter((r) => !r.ok).map((r) => r.steps.find((s) => s.expected !== s.actual))).toEqual([]);
    expect(updated.at(-1)?.steps.at(-1)?.expect).toBe('END Weather for Nairobi: sunny');
    expect(unreached(tree, d.logs)).toEqual([]);
  });
});
