import type { PendingApproval } from '../../../contracts/oracle.js';
import type { ChatStatus, IMessage, RunState, StreamingMode } from '../types.js';

/** Everything of a chat but its messages: never throttled, published at once. */
/** No pending approval (one frozen list, so an unchanged meta keeps its identity). */
const NO_APPROVALS: readonly PendingApproval[] = Object.freeze([]);

export interface ChatMeta {
  status: ChatStatus;
  error: Error | undefined;
  sendMessageError: Error | undefined;
  /** True while the first history page loads. */
  isLoading: boolean;
  hasOlderMessages: boolean;
  isRealTimeConnected: boolean;
  run: RunState;
  /** Tool calls of the turn that wait for the user's approval (oldest first). */
  pendingApprovals: readonly PendingApproval[];
}

export const INITIAL_RUN: RunState = Object.freeze({
  runId: null,
  requestId: null,
  reconnecting: false,
  resumed: false,
  ended: null,
});

type Schedule = (cb: () => void) => () => void;

const frame: Schedule = (cb) => {
  if (typeof globalThis.requestAnimationFrame === 'function') {
    const id = globalThis.requestAnimationFrame(cb);
    return () => globalThis.cancelAnimationFrame(id);
  }
  const id = setTimeout(cb, 16);
  return () => clearTimeout(id);
};

/**
 * A chat's state outside React, read with `useSyncExternalStore` through two subscriptions: messages and
 * meta (status, errors, run, connection). Message edits go to a working copy of the list, made once per
 * publish (never a deep clone, never a copy per token); `batched` publishes at most once per animation
 * frame, `immediate` at every {@link ChatStore.commit} (one per network read). Meta changes publish the
 * pending messages first, so a status never shows before the text it follows.
 */
export class ChatStore {
  #messages: IMessage[] = [];
  #draft: IMessage[] | null = null;
  readonly #index = new Map<string, number>();
  #meta: ChatMeta = {
    status: 'ready',
    error: undefined,
    sendMessageError: undefined,
    isLoading: false,
    hasOlderMessages: false,
    isRealTimeConnected: false,
    run: INITIAL_RUN,
    pendingApprovals: NO_APPROVALS,
  };
  #turnApprovals: readonly PendingApproval[] = NO_APPROVALS;
  #localApprovals: readonly PendingApproval[] = NO_APPROVALS;
  readonly #messageListeners = new Set<() => void>();
  readonly #metaListeners = new Set<() => void>();
  #cancelFrame: (() => void) | undefined;
  readonly #schedule: Schedule;

  constructor(
    public mode: StreamingMode = 'batched',
    schedule: Schedule = frame,
  ) {
    this.#schedule = schedule;
  }

  getMessages = (): IMessage[] => this.#messages;
  getMeta = (): ChatMeta => this.#meta;

  subscribeMessages = (listener: () => void): (() => void) => {
    this.#messageListeners.add(listener);
    return () => this.#messageListeners.delete(listener);
  };

  subscribeMeta = (listener: () => void): (() => void) => {
    this.#metaListeners.add(listener);
    return () => this.#metaListeners.delete(listener);
  };

  /** The messages as last edited (published or not). */
  current(): IMessage[] {
    return this.#draft ?? this.#messages;
  }

  /** The message with this id, as last edited (published or not). */
  find(id: string): IMessage | undefined {
    const i = this.#index.get(id);
    return i === undefined ? undefined : (this.#draft ?? this.#messages)[i];
  }

  /** Replaces or appends the message with this id. */
  upsert(id: string, update: (old: IMessage | undefined) => IMessage): void {
    const list = this.#working();
    const i = this.#index.get(id);
    if (i === undefined) {
      this.#index.set(id, list.length);
      list.push(update(undefined));
    } else {
      list[i] = update(list[i]);
    }
  }

  /** Replaces the whole list. */
  replaceAll(messages: IMessage[]): void {
    this.#draft = messages.slice();
    this.#reindex();
  }

  /** Inserts older messages before the current ones (ids already present are skipped). */
  prepend(older: IMessage[]): void {
    const fresh = older.filter((m) => !this.#index.has(m.id));
    this.#draft = [...fresh, ...this.#working()];
    this.#reindex();
  }

  /**
   * `batched` with a throttle: at most one publish per `throttleMs` (reference SDK 1.4.0's
   * `streamingThrottleMs`) instead of one per animation frame.
   */
  throttleMs: number | undefined;

  /** Publishes the pending edits: now (`immediate`), or at the next animation frame (or throttle tick). */
  commit(): void {
    if (this.mode === 'immediate') {
      this.flush();
      return;
    }
    const throttle = this.throttleMs;
    const schedule: Schedule =
      throttle !== undefined && throttle > 0
        ? (cb) => {
            const id = setTimeout(cb, throttle);
            return () => clearTimeout(id);
          }
        : this.#schedule;
    this.#cancelFrame ??= schedule(() => {
      this.#cancelFrame = undefined;
      this.flush();
    });
  }

  /** Publishes the pending edits now. */
  flush(): void {
    this.#cancelFrame?.();
    this.#cancelFrame = undefined;
    if (!this.#draft) return;
    this.#messages = this.#draft;
    this.#draft = null;
    for (const l of [...this.#messageListeners]) l();
  }

  /** Changes meta, publishing pending messages first. */
  setMeta(patch: Partial<ChatMeta>): void {
    this.flush();
    let changed = false;
    for (const [k, v] of Object.entries(patch)) {
      if (this.#meta[k as keyof ChatMeta] !== v) changed = true;
    }
    if (!changed) return;
    this.#meta = { ...this.#meta, ...patch };
    for (const l of [...this.#metaListeners]) l();
  }

  /** The turn's pending approvals (from its events); `pendingApprovals` is these, then the browser's own. */
  setTurnApprovals(list: readonly PendingApproval[]): void {
    this.#turnApprovals = list;
    this.#publishApprovals();
  }

  /** The pending approvals of browser tools asked in this tab (see {@link setTurnApprovals}). */
  setLocalApprovals(list: readonly PendingApproval[]): void {
    this.#localApprovals = list;
    this.#publishApprovals();
  }

  #publishApprovals(): void {
    const all =
      this.#localApprovals.length === 0
        ? this.#turnApprovals
        : this.#turnApprovals.length === 0
          ? this.#localApprovals
          : [...this.#turnApprovals, ...this.#localApprovals];
    this.setMeta({ pendingApprovals: all });
  }

  setRun(patch: Partial<RunState>): void {
    this.setMeta({ run: { ...this.#meta.run, ...patch } });
  }

  /** Stops a scheduled publish (on unmount). */
  dispose(): void {
    this.#cancelFrame?.();
    this.#cancelFrame = undefined;
  }

  #working(): IMessage[] {
    this.#draft ??= this.#messages.slice();
    return this.#draft;
  }

  #reindex(): void {
    this.#index.clear();
    (this.#draft ?? this.#messages).forEach((m, i) => this.#index.set(m.id, i));
  }
}
