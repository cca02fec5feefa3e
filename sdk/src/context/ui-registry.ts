import type { UIComponents } from '../types.js';

/**
 * The UI components that mounted `useChat` hooks were given (`useChat({uiComponents})`), merged: what
 * `renderMessageContent(content)` draws tool calls and components with when it is not given a map itself.
 */
export class UiRegistry {
  readonly #entries = new Set<() => UIComponents | undefined>();
  readonly #listeners = new Set<() => void>();
  #version = 0;

  /** Registers a getter of a hook's latest `uiComponents`; returns the unregister. */
  register(get: () => UIComponents | undefined): () => void {
    this.#entries.add(get);
    this.#changed();
    return () => {
      if (this.#entries.delete(get)) this.#changed();
    };
  }

  /** Every registered component by name (a later registration wins a name). */
  get(): UIComponents {
    const merged: UIComponents = {};
    for (const get of this.#entries) Object.assign(merged, get());
    return merged;
  }

  version = (): number => this.#version;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Tells renderers to read again (a hook's map changed). */
  touch(): void {
    this.#changed();
  }

  #changed(): void {
    this.#version++;
    for (const l of [...this.#listeners]) l();
  }
}
