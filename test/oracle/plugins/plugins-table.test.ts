import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { builtInPlugins } from '../../../server/oracle/plugins/index.js';
import { PLUGINS_TABLE_DOC, renderPluginsTable } from '../../../server/oracle/plugins/table.js';
import { userPreferencesManifest } from '../../../server/oracle/plugins/user-preferences/index.js';

describe('the plugins table of docs/agent-api.md', () => {
  it('is the one the manifests produce (run `npm run docs:plugins` after changing a manifest)', async () => {
    const doc = await readFile(PLUGINS_TABLE_DOC, 'utf8');
    expect(doc).toContain(renderPluginsTable(builtInPlugins()));
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
