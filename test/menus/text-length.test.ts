import { describe, expect, it } from 'vitest';
import { USSD_TEXT_MAX } from '../../contracts/ussd.js';
import { menuTree } from '../../generated/menus.js';
import { shortestTexts } from '../../scripts/menus/check-text-length.js';
import { VALIDATOR_SHORTEST } from '../../scripts/menus/validators.js';
import { validators } from '../../server/ussd/engine/validators.js';

// The spec's 182-character limit applies to the accumulated text of a session (issue 14 item 1): the
// generator measures the shortest text to every screen.
describe('shortest accumulated text of each flow', () => {
  it.each(Object.entries(VALIDATOR_SHORTEST))(
    'the generator counts a value the engine accepts for %s',
    (name, value) => {
      const check = validators[name as keyof typeof validators];
      expect(check(value, { maxLength: 60 })).toEqual({ ok: true, value });
    },
  );

  it('measures the real menus: every screen within the limit, as the engine would be driven', () => {
    for (const lang of Object.keys(menuTree.languages)) {
      const ways = shortestTexts(menuTree, lang);
      expect(ways.get('preMenu')).toEqual({ length: 0, inputs: [] });
      expect(ways.get('accountMenu')).toEqual({ length: 1, inputs: ['2'] });
      // Create an account: name, skip the e-mail, PIN, PIN again.
      expect(ways.get('accountCreated')?.inputs).toEqual(['2', '2', 'Al', '00', '13579', '13579']);
      expect(ways.get('accountCreated')?.length).toBe('2*2*Al*00*13579*13579'.length);
      for (const [node, way] of ways) {
        expect([node, way.length <= USSD_TEXT_MAX]).toEqual([node, true]);
      }
      // Every node of the tree is measured.
      expect([...ways.keys()].sort()).toEqual(Object.keys(menuTree.nodes).sort());
    }
  });
});
