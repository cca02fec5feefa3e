import type { ChatStore } from './chat-store.js';
import { reduceEvent, type TurnState } from './event-reducer.js';
import type { LiveTurn } from './history.js';
import type { StreamEvent } from './sse.js';

/** One turn being read: its reducer state, and how it may stop. */
export class Turn {
  state: TurnState;
  /** The optimistic user message of this turn (until history has the stored one). */
  humanId: string | undefined = undefined;
  readonly abort = new AbortController();
  /** The user aborted: no re-join, status lands in `ready`. */
  userAborted = false;
  /** The hook unmounted, a newer turn started, or `detachStream`: stop quietly. */
  detached = false;
  /** Settles once the turn's reading has ended, however it ended. */
  readonly done: Promise<void>;
  readonly markDone: () => void;

  constructor(state: TurnState) {
    this.state = state;
    let markDone!: () => void;
    this.done = new Promise<void>((resolve) => (markDone = resolve));
    this.markDone = markDone;
  }

  /** The turn as a refetch of history merges it. */
  get live(): LiveTurn {
    return { humanId: this.humanId, requestId: this.state.requestId };
  }

  /** Stops reading quietly (the server's run goes on). */
  detach(): void {
    this.detached = true;
    this.abort.abort();
  }

  /**
   * Applies one event of the turn's stream through the reducer and writes what it gives into `store`: the
   * answer, the run when it changed, at once when the reducer says so. True when the event was new (not a
   * replay of one applied before).
   */
  apply(ev: StreamEvent, store: ChatStore): boolean {
    const before = this.state;
    const id = before.requestId ?? (ev.event.eventName === 'run' ? ev.event.payload.requestId : undefined);
    const r = reduceEvent(before, id ? store.find(id) : undefined, ev);
    this.state = r.turn;
    const message = r.message;
    if (message) store.upsert(message.id, () => message);
    if (r.turn.resumed !== before.resumed || r.turn.runId !== before.runId)
      store.setRun({
        runId: r.turn.runId ?? null,
        requestId: r.turn.requestId ?? null,
        resumed: r.turn.resumed,
      });
    if (r.turn.pendingApprovals !== before.pendingApprovals) store.setTurnApprovals(r.turn.pendingApprovals);
    if (r.urgent) store.flush();
    return ev.id === undefined || ev.id > before.lastEventId;
  }

  /** The stream delivered `done`: the run's end, and the chat lands in `ready` (`error` for a failed turn). */
  landEnded(store: ChatStore): void {
    const ended = this.state.ended ?? 'finished';
    store.setRun({ reconnecting: false, ended });
    if (ended === 'failed') {
      store.setMeta({
        status: 'error',
        sendMessageError: new Error(this.state.errorText ?? 'The turn failed'),
      });
    } else {
      store.setMeta({ status: 'ready' });
    }
  }

  /** The user's abort stopped the reading before `done` landed: the answer ends `aborted`, the chat `ready`. */
  landAborted(store: ChatStore): void {
    const id = this.state.requestId;
    if (id)
      store.upsert(id, (old) => ({
        ...(old ?? { id, type: 'ai', content: '' }),
        isComplete: true,
        runStatus: 'aborted',
      }));
    store.setRun({ reconnecting: false, ended: 'aborted' });
    store.setMeta({ status: 'ready' });
  }
}
