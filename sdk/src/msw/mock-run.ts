import type { RunInfo } from '../../../contracts/oracle.js';
import type { ServerEventName, ServerEventPayload, RunEndStatus } from '../../../contracts/events.js';
import { isInFlight } from '../../../contracts/run-states.js';

/** One event of a mocked run, as it goes on the wire. */
export interface MockRunEvent {
  id: number;
  event: ServerEventName;
  data: unknown;
}

const encoder = new TextEncoder();

/** One SSE frame: `id:`, `event:`, one-line JSON `data:`. */
function sseFrame(e: MockRunEvent): string {
  return `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

interface Subscriber {
  controller: ReadableStreamDefaultController<Uint8Array>;
  closed: boolean;
}

/**
 * A durable run of the mock oracle: its events are kept, so a dropped stream can be re-joined after any event
 * id (`GET /runs/:runId?after=N`) and then follows the run live.
 */
export class MockRun {
  readonly events: MockRunEvent[] = [];
  status: RunInfo['status'] = 'running';
  text = '';
  abortRequested = false;
  readonly createdAt = new Date().toISOString();
  updatedAt = this.createdAt;
  readonly #subscribers = new Set<Subscriber>();

  constructor(
    readonly runId: string,
    readonly requestId: string,
    readonly sessionId: string,
  ) {}

  get ended(): boolean {
    return !isInFlight(this.status);
  }

  info(): RunInfo {
    return {
      runId: this.runId,
      requestId: this.requestId,
      sessionId: this.sessionId,
      status: this.status,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
      lastEventId: this.events.length,
      ...(this.ended && this.status !== 'finished' ? { partialText: this.text } : {}),
    };
  }

  /** Appends an event (typed by the contracts) and sends it to every live subscriber. */
  append<N extends ServerEventName>(event: N, data: ServerEventPayload<N>): void {
    const e: MockRunEvent = { id: this.events.length + 1, event, data };
    this.events.push(e);
    this.updatedAt = new Date().toISOString();
    for (const s of this.#subscribers) this.#send(s, e);
  }

  /** Ends the run with `done` and closes every stream. */
  finish(status: RunEndStatus): void {
    if (this.ended) return;
    this.append('done', status === 'finished' ? { status } : { status, partialText: this.text });
    this.status = status;
    for (const s of this.#subscribers) this.#close(s);
    this.#subscribers.clear();
  }

  /** Closes every open stream without `done` (a dropped connection); the run goes on. */
  dropStreams(): void {
    for (const s of this.#subscribers) this.#close(s);
    this.#subscribers.clear();
  }

  /** A stream of the events after `after`, then live ones until the run ends. */
  stream(after: number, signal: AbortSignal): ReadableStream<Uint8Array> {
    let sub: Subscriber;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        sub = { controller, closed: false };
        for (const e of this.events) if (e.id > after) this.#send(sub, e);
        if (this.ended) return this.#close(sub);
        this.#subscribers.add(sub);
        // msw does not error a mocked body when the client aborts its fetch; do it here (toolchain notes §5.1).
        signal.addEventListener('abort', () => {
          this.#subscribers.delete(sub);
          if (!sub.closed) {
            sub.closed = true;
            controller.error(new DOMException('Aborted', 'AbortError'));
          }
        });
      },
      cancel: () => {
        sub.closed = true;
        this.#subscribers.delete(sub);
      },
    });
  }

  #send(s: Subscriber, e: MockRunEvent): void {
    if (!s.closed) s.controller.enqueue(encoder.encode(sseFrame(e)));
  }

  #close(s: Subscriber): void {
    if (s.closed) return;
    s.closed = true;
    s.controller.close();
  }
}
