import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// The project's ESLint configuration (eslint.config.js) on files that do not exist: a part importing another
// part, the platform importing a part, the oracle's runtime importing its routes, and imports that are allowed.
// The type-aware rules are switched off (they need the file in the TypeScript project); the boundaries are not.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RULE = 'project/import-boundaries';
const PARTS_APART =
  'parts share code only through the platform (server/ outside the parts; README "Code map").';

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });
});

/** What ESLint says about `code` as the file `file` (repository-relative): rule, line and message of each. */
async function lint(file: string, code: string): Promise<[string | null, number, string][]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.map((m) => [m.ruleId, m.line, m.message]);
}

describe('ESLint keeps the parts of the server apart', () => {
  it('rejects an import of the USSD part from the oracle, naming both and the import', async () => {
    expect(
      await lint(
        'server/oracle/limits/virtual.ts',
        "import { createUssdRateLimit } from '../../ussd/http/rate-limit.js';\nexport const limit = createUssdRateLimit;\n",
      ),
    ).toEqual([
      [
        RULE,
        1,
        `server/oracle/ must not import server/ussd/ (../../ussd/http/rate-limit.js): ${PARTS_APART}`,
      ],
    ]);
  });

  it('lets the oracle import the platform (the fallback store it shares with the USSD rate limiter)', async () => {
    expect(
      await lint(
        'server/oracle/limits/virtual.ts',
        "import { createFallbackRedisStore } from '../../stores/fallback-rate-limit-store.js';\nexport const store = createFallbackRedisStore;\n",
      ),
    ).toEqual([]);
  });

  it('rejects a re-export of the oracle from the chain part, and a dynamic import of the chain from the USSD part', async () => {
    expect(
      await lint('server/chain/virtual.ts', "export { createOraclePart } from '../oracle/part.js';\n"),
    ).toEqual([
      [RULE, 1, `server/chain/ must not import server/oracle/ (../oracle/part.js): ${PARTS_APART}`],
    ]);
    expect(
      await lint('server/ussd/http/virtual.ts', "export const load = () => import('../../chain/part.js');\n"),
    ).toEqual([
      [RULE, 1, `server/ussd/ must not import server/chain/ (../../chain/part.js): ${PARTS_APART}`],
    ]);
  });

  it('rejects a part imported by the platform, and lets the composition roots import parts', async () => {
    expect(
      await lint(
        'server/http/virtual.ts',
        "import { createChainPart } from '../chain/part.js';\nexport const part = createChainPart;\n",
      ),
    ).toEqual([
      [
        RULE,
        1,
        'the platform (server/ outside the parts) must not import server/chain/ (../chain/part.js): it serves every part and knows none; only the composition roots (main.ts, server.ts, app.ts, config.ts) import parts (README "Code map").',
      ],
    ]);
    expect(
      await lint(
        'server/server.ts',
        "import { createChainPart } from './chain/part.js';\nexport const part = createChainPart;\n",
      ),
    ).toEqual([]);
  });

  it("lets server/config.ts import a part's config.ts and nothing else of it", async () => {
    expect(
      await lint(
        'server/config.ts',
        "import { ussdConfig } from './ussd/config.js';\nimport { createUssdPart } from './ussd/part.js';\nexport const both = [ussdConfig, createUssdPart];\n",
      ),
    ).toEqual([
      [
        RULE,
        2,
        "server/config.ts must not import server/ussd/ (./ussd/part.js): the platform's schema composes each part's own schema (its config.ts) and nothing else of it.",
      ],
    ]);
  });

  it("rejects the oracle's routes imported by its runtime, also as a type, and lets the runtime import the platform's http/", async () => {
    const because =
      'the agent runtime runs turns whatever carries them; the HTTP routes use it, never the reverse (README "Code map").';
    expect(
      await lint(
        'server/oracle/runtime/virtual.ts',
        [
          "import { errorKindOf } from '../../http/error-kind.js';",
          "import type { OracleServices } from '../http/router.js';",
          "export const load = () => import('../http/router.js');",
          'export const kind = errorKindOf;',
          'export type Services = OracleServices;',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      [RULE, 2, `server/oracle/runtime/ must not import server/oracle/http/ (../http/router.js): ${because}`],
      [RULE, 3, `server/oracle/runtime/ must not import server/oracle/http/ (../http/router.js): ${because}`],
    ]);
  });
});
