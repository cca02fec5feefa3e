import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './project-root.js';

/** What is running: the package version and the commit it was built from. */
export interface BuildInfo {
  /** `name` and `version` of package.json. */
  name: string;
  version: string;
  /** The commit (12 hex digits): BUILD_COMMIT when set, else read from the checkout's `.git`, else `unknown`. */
  commit: string;
}

/**
 * Reads package.json and the checked-out commit, without running git (no child process at start-up): `.git`
 * is a directory or, in a worktree, a file naming one; HEAD is a commit or a ref, which is a loose file or a
 * line of `packed-refs` in the common directory.
 */
export function readBuildInfo(buildCommit?: string, root = projectRoot()): BuildInfo {
  let name = 'unknown';
  let version = 'unknown';
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      name?: string;
      version?: string;
    };
    name = pkg.name ?? name;
    version = pkg.version ?? version;
  } catch {
    // a deployment without package.json: names unknown
  }
  return { name, version, commit: shortCommit(buildCommit ?? gitCommit(root)) ?? 'unknown' };
}

function shortCommit(commit: string | undefined): string | undefined {
  return commit && /^[0-9a-f]{7,40}$/i.test(commit) ? commit.slice(0, 12).toLowerCase() : undefined;
}

function gitCommit(root: string): string | undefined {
  try {
    let gitDir = path.join(root, '.git');
    if (!existsSync(gitDir)) return undefined;
    if (!existsSync(path.join(gitDir, 'HEAD'))) {
      // A worktree or submodule: `.git` is a file `gitdir: <path>`.
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitDir, 'utf8'))?.[1]?.trim();
      if (!pointer) return undefined;
      gitDir = path.resolve(root, pointer);
    }
    const head = readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    const ref = /^ref:\s*(.+)$/.exec(head)?.[1];
    if (ref === undefined) return head;
    const commonFile = path.join(gitDir, 'commondir');
    const common = existsSync(commonFile)
      ? path.resolve(gitDir, readFileSync(commonFile, 'utf8').trim())
      : gitDir;
    for (const dir of [gitDir, common]) {
      const loose = path.join(dir, ref);
      if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    }
    const packed = path.join(common, 'packed-refs');
    if (!existsSync(packed)) return undefined;
    for (const line of readFileSync(packed, 'utf8').split('\n')) {
      const [sha, name] = line.split(' ');
      if (name === ref) return sha;
    }
    return undefined;
  } catch {
    return undefined;
  }
}
