import type { MenuTree } from '../../generated/menus.js';

/**
 * The menus a development server serves while `npm run dev` regenerates them: the last tree that
 * compiled, and the problem of the last run when it did not (shown by the simulator page). A server built
 * without one serves the generated menus and never changes them.
 */
export class LiveMenus {
  #tree: MenuTree;
  #problem: string | undefined;
  #version = 0;

  constructor(tree: MenuTree) {
    this.#tree = tree;
  }

  get tree(): MenuTree {
    return this.#tree;
  }

  /** The generator's message of the last run when it refused the menus; undefined after a good run. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /** Counts the trees served: the page reloads its map when it changes. */
  get version(): number {
    return this.#version;
  }

  /** A new tree compiled: served from the next request on. */
  replace(tree: MenuTree): void {
    this.#tree = tree;
    this.#problem = undefined;
    this.#version += 1;
  }

  /** The menus were refused: the last good tree keeps serving, and the page shows why. */
  fail(problem: string): void {
    this.#problem = problem;
  }
}
