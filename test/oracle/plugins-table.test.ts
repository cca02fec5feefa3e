import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { builtInPlugins } from '../../server/oracle/plugins/index.js';
import { renderPluginsTable } from '../../server/oracle/plugins/table.js';
import { userPreferencesManifest } from '../../server/oracle/plugins/user-preferences/index.js';

describe('the plugins table of the README', () => {
  it('is the one the manifests produce (run `npm run docs:plugins` after changing a manifest)', async () => {
    const readme = await readFile('README.md', 'utf8');
    expect(readme).toContain(renderPluginsTable(builtInPlugins()));
  });

  it("gives user-preferences exactly spec part D's attributes", () => {
    expect(userPreferencesManifest).toEqual({
      name: 'user-preferences',
      title: 'User preferences',
      summary: expect.any(String),
      visibility: 'always',
      stability: 'stable',
      category: 'core',
      defaultOn: true,
      dependsOn: [],
      requiredEnv: [],
    });
    expect(renderPluginsTable(builtInPlugins())).toContain(
      '| `user-preferences` | User preferences | `always` | `stable` | `core` | on | none | none | `set_user_preferences` | UserPreferencesHttpModule (/user-preferences) |',
    );
  });
});
