import type { z } from 'zod';
import type { AgActionRender } from '../types.js';

/** What `useAgAction` registers; the handler and render are read through refs, so they are never stale. */
export interface RegisteredAction {
  name: string;
  description: string;
  parameters: z.ZodTypeAny;
  hasRender: boolean;
  handler: (args: unknown) => unknown;
  render: AgActionRender<unknown> | undefined;
}

/** The provider's registry of agent-UI actions (spec C4). */
export class ActionRegistry {
  readonly #actions = new Map<string, () => RegisteredAction>();
  readonly #listeners = new Set<() => void>();
  #version = 0;

  /** Registers an action by name; the getter returns its latest definition. Returns the unregister. */
  register(name: string, get: () => RegisteredAction): () => void {
    this.#actions.set(name, get);
    this.#changed();
    return () => {
      if (this.#actions.get(name) === get) {
        this.#actions.delete(name);
        this.#changed();
      }
    };
  }

  get(name: string): RegisteredAction | undefined {
    return this.#actions.get(name)?.();
  }

  list(): RegisteredAction[] {
    return [...this.#actions.values()].map((get) => get());
  }

  /** Changes when an action is added or removed (for `useSyncExternalStore`). */
  version = (): number => this.#version;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  #changed(): void {
    this.#version++;
    for (const l of [...this.#listeners]) l();
  }
}
