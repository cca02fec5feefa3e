/**
 * `npm run check:docs` (CI runs it after lint): the docs still say true things about the repository.
 *
 * For README.md, docs/*.md, sdk/*.md and menus/README.md it fails, naming page and line, when
 * - a relative link or image points at a file that does not exist, or an `#anchor` at no heading of its page
 *   (anchors as GitHub makes them);
 * - a page names `npm run X` and X is not a script of the package.json it belongs to (the root's; for
 *   sdk/*.md the root's or the SDK's; `-w sdk` the SDK's);
 * - a page of docs/ carries a date in prose outside what scripts write (figures and the day of their run are
 *   written by the script that measured them, between markers; history lives in git);
 * - docs/spine.svg is not what docs/spine.yaml draws (`npm run docs:spine`).
 * Code blocks marked `<!-- runnable -->` are run by test/docs/runnable.test.ts, in `npm test`.
 */
import { existsSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { spineIsCurrent } from '../docs/render-spine.js';
import { REPO_ROOT, repoPath } from '../lib/repo-root.js';
import { anchorsOf, datedProseOf, linksOf, npmScriptsOf } from './lib/markdown-doc.js';

/** The pages checked, relative to the repository root. */
export async function docPages(): Promise<string[]> {
  const md = async (dir: string): Promise<string[]> =>
    (await readdir(path.join(REPO_ROOT, dir)).catch(() => []))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => (dir === '.' ? f : `${dir}/${f}`));
  const pages = ['README.md', ...(await md('docs')), ...(await md('sdk')), 'menus/README.md'];
  return pages.filter((p) => existsSync(path.join(REPO_ROOT, p)));
}

async function scriptsOf(packageJson: string): Promise<Set<string>> {
  const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, packageJson), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  return new Set(Object.keys(pkg.scripts ?? {}));
}

/** Every problem of the pages, one line each (`page:line: what`). */
export async function checkDocs(pages: string[]): Promise<string[]> {
  const problems: string[] = [];
  const rootScripts = await scriptsOf('package.json');
  const sdkScripts = await scriptsOf('sdk/package.json');
  const anchorCache = new Map<string, Set<string>>();
  const anchors = async (file: string): Promise<Set<string>> => {
    let found = anchorCache.get(file);
    if (!found) {
      found = anchorsOf(await readFile(file, 'utf8'));
      anchorCache.set(file, found);
    }
    return found;
  };
  for (const page of pages) {
    const file = path.join(REPO_ROOT, page);
    const text = await readFile(file, 'utf8');
    for (const { target, line } of linksOf(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: …
      const [rawPath = '', anchor] = target.split('#', 2);
      const linked = rawPath === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(rawPath));
      if (!linked.startsWith(REPO_ROOT)) {
        problems.push(`${page}:${line}: ${target} points outside the repository`);
        continue;
      }
      if (!existsSync(linked)) {
        problems.push(`${page}:${line}: ${target}: ${repoPath(linked)} does not exist`);
        continue;
      }
      if (anchor !== undefined && linked.endsWith('.md') && statSync(linked).isFile()) {
        if (!(await anchors(linked)).has(anchor)) {
          problems.push(`${page}:${line}: ${target}: ${repoPath(linked)} has no heading #${anchor}`);
        }
      }
    }
    if (page.startsWith('docs/')) {
      for (const { line, date } of datedProseOf(text)) {
        problems.push(
          `${page}:${line}: ${date} in prose: a figure's day is written by the script that measured it, between markers`,
        );
      }
    }
    for (const { script, workspace, line } of npmScriptsOf(text)) {
      const known =
        workspace === 'sdk'
          ? sdkScripts.has(script)
          : rootScripts.has(script) || (page.startsWith('sdk/') && sdkScripts.has(script));
      if (!known) {
        const where = workspace === 'sdk' ? 'sdk/package.json' : 'package.json';
        problems.push(`${page}:${line}: npm run ${script}: no such script in ${where}`);
      }
    }
  }
  if (!(await spineIsCurrent())) {
    problems.push('docs/spine.svg: not what docs/spine.yaml draws (run npm run docs:spine)');
  }
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const pages = await docPages();
  const problems = await checkDocs(pages);
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    console.error(`\n${problems.length} problem(s) in the docs`);
    process.exit(1);
  }
  console.log(
    `docs: ${pages.length} pages, every link, anchor and npm script resolves; the spine is current`,
  );
}
