import { ChatController, type ChatControllerDeps } from './chat-controller.js';

/**
 * The provider's chats, one per (user, oracle, session): every `useChat` of a session reads the same
 * {@link ChatController}, so two hooks on one session share one socket, one stream and one store, and a
 * browser tool or action runs once.
 */
export class ChatRegistry {
  readonly #chats = new Map<string, { controller: ChatController; users: number }>();

  /** The chat of a key, made on first use (during render: no side effects until `retain`). */
  get(key: string, deps: () => ChatControllerDeps): ChatController {
    const entry = this.#chats.get(key);
    if (entry) return entry.controller;
    const controller = new ChatController(deps());
    this.#chats.set(key, { controller, users: 0 });
    return controller;
  }

  /** A chat of the session mounted now (the one an approval card of its messages decides through). */
  ofSession(sessionId: string): ChatController | undefined {
    for (const { controller, users } of this.#chats.values()) {
      if (users > 0 && controller.sessionId === sessionId) return controller;
    }
    return undefined;
  }

  /** A mounted hook uses the chat; the returned release forgets it when the last hook goes. */
  use(key: string, controller: ChatController): () => void {
    let entry = this.#chats.get(key);
    if (!entry || entry.controller !== controller) {
      entry = { controller, users: 0 };
      this.#chats.set(key, entry);
    }
    entry.users++;
    const held = entry;
    return () => {
      held.users--;
      if (held.users === 0 && this.#chats.get(key) === held) this.#chats.delete(key);
    };
  }
}
