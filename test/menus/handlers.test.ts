import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as prettier from 'prettier';
import { afterAll, describe, expect, it } from 'vitest';
import { registeredHandlers } from '../../scripts/menus/check-handlers.js';
import { generateMenus } from '../../scripts/menus/generate-menus.js';

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

/** The basic fixture's menus (actions signIn and signOut) with a handlers folder whose index registers `names`. */
async function workspace(names: string[]): Promise<{ menus: string; actions: string; out: string }> {
  // Inside the repository, so Prettier finds the repository's settings for the files it formats.
  const root = await mkdtemp(path.join(process.cwd(), '.tmp-handlers-'));
  temps.push(root);
  const menus = path.join(root, 'menus');
  const actions = path.join(root, 'actions');
  await cp('test/fixtures/menus/basic', menus, { recursive: true });
  await rm(path.join(menus, 'expected'), { recursive: true });
  await cp('server/ussd/actions', actions, { recursive: true });
  const imports = names.map((n) => `import { ${n} } from './${n}.js';`).join('\n');
  await writeFile(
    path.join(actions, 'index.ts'),
    `import type { ActionHandlers } from '../engine/action-types.js';\n${imports}\n\n` +
      `export const actionHandlers: ActionHandlers = {\n${names.map((n) => `  ${n},`).join('\n')}\n};\n`,
  );
  return { menus, actions, out: path.join(root, 'out') };
}

const failure = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'no error',
    (err: unknown) => (err as Error).message,
  );

describe('the generator holds the menus and the action handlers together', () => {
  it('reports an action with no handler at its YAML line, and a handler no menu names, in one run', async () => {
    const w = await workspace(['signIn', 'signOutt']);
    const message = await failure(
      generateMenus({ menusDir: w.menus, outDir: w.out, handlers: { dir: w.actions } }),
    );
    const rel = path.relative(process.cwd(), w.actions);
    expect(message.split('\n')).toEqual([
      `${rel}/index.ts:7 handler "signOutt" is registered but no menu names action "signOutt" (did you mean "signOut"?); remove it or name it in menus/`,
      `${path.relative(process.cwd(), w.menus)}/tree.yaml:19 node "preMenu": option 4, action: action "signOut" has no handler in ${rel}/index.ts (did you mean "signOutt"?); \`npm run generate -- --stubs\` writes a typed one for you to fill in`,
    ]);
  });

  it('with --stubs, writes a typed stub that leads to its first target and registers it, formatted as the repository is', async () => {
    const w = await workspace(['signIn']);
    await writeFile(path.join(w.actions, 'sign-in.ts'), 'export const signIn = undefined;\n');
    const result = await generateMenus({
      menusDir: w.menus,
      outDir: w.out,
      handlers: { dir: w.actions, writeStubs: true },
    });
    const rel = path.relative(process.cwd(), w.actions);
    expect(result.stubs).toEqual([`${rel}/sign-out.ts`, `${rel}/index.ts`]);
    const stub = await readFile(path.join(w.actions, 'sign-out.ts'), 'utf8');
    expect(stub).toContain("export const signOut: ActionHandler<ActionTargets['signOut']> = (_ctx) => {");
    expect(stub).toContain("return Promise.resolve({ next: 'preMenu' });");
    expect(stub).toContain('signOut: named in');
    const index = await readFile(path.join(w.actions, 'index.ts'), 'utf8');
    expect(index).toContain(
      "import { signIn } from './signIn.js';\nimport { signOut } from './sign-out.js';",
    );
    expect(registeredHandlers(index)).toEqual(
      new Map([
        ['signIn', 6],
        ['signOut', 7],
      ]),
    );
    for (const [file, text] of [
      ['sign-out.ts', stub],
      ['index.ts', index],
    ] as const) {
      const options = (await prettier.resolveConfig(path.join(w.actions, file))) ?? {};
      expect(await prettier.check(text, { ...options, filepath: path.join(w.actions, file) })).toBe(true);
    }
    // A second run finds every action handled and writes nothing more.
    expect(
      await generateMenus({
        menusDir: w.menus,
        outDir: w.out,
        handlers: { dir: w.actions, writeStubs: true },
      }),
    ).toMatchObject({ stubs: [] });
  });

  it('the real menus and server/ussd/actions/index.ts agree', async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'menus-'));
    temps.push(out);
    await expect(
      generateMenus({ menusDir: 'menus', outDir: out, handlers: { dir: 'server/ussd/actions' } }),
    ).resolves.toMatchObject({ stubs: [] });
  });
});
