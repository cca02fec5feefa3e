import type { BrowserTool, IChatOptions } from '../types.js';

/** What `useChat` needs when no option getter has joined yet. */
const NO_OPTIONS: IChatOptions = { oracleDid: '', sessionId: '', onPaymentRequiredError: () => undefined };

/** The `useChat` hooks of one chat, each by a getter of its latest options; the first joined leads. */
export class Participants {
  readonly #getters: (() => IChatOptions)[] = [];

  /** A hook's options join; returns its leave. */
  join(options: () => IChatOptions): () => void {
    this.#getters.push(options);
    return () => {
      const i = this.#getters.indexOf(options);
      if (i !== -1) this.#getters.splice(i, 1);
    };
  }

  /** The leading hook's options (its callbacks are called, its settings apply). */
  options(): IChatOptions {
    return this.#getters[0]?.() ?? NO_OPTIONS;
  }

  /** The browser tools of every hook (the first hook's win a name). */
  browserTools(): Record<string, BrowserTool> {
    const tools: Record<string, BrowserTool> = {};
    for (const get of [...this.#getters].reverse()) Object.assign(tools, get().browserTools);
    return tools;
  }
}
