import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One server-sent event as a real client reads it. */
export interface SseEvent {
  id: number | undefined;
  event: string;
  data: unknown;
}

/**
 * The text a client shows: message deltas appended, cut back to `partialLength` at a `resumed` run event, and
 * replaced by `partialText` at a `done` that is not `finished`.
 */
export function assembledText(events: SseEvent[]): string {
  let text = '';
  for (const e of events) {
    if (e.event === 'message') text += (e.data as { content: string }).content;
    if (e.event === 'run') {
      const { partialLength } = e.data as { partialLength?: number };
      if (partialLength !== undefined) text = text.slice(0, partialLength);
    }
    // A run that did not finish ends with its answer so far, which the client shows (the SDK's reducer does).
    if (e.event === 'done') {
      const { status, partialText } = e.data as { status: string; partialText?: string };
      if (status !== 'finished' && partialText !== undefined) text = partialText;
    }
  }
  return text;
}

/**
 * Reads a `text/event-stream` body with eventsource-parser (the framing parser browsers' EventSource
 * polyfills use), chunk by chunk as the network delivers it. `onEvent` may stop reading by returning true.
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onEvent?: (event: SseEvent, all: SseEvent[]) => boolean | void,
  onComment?: (comment: string) => boolean | void,
): Promise<{ events: SseEvent[]; comments: string[]; stoppedEarly: boolean; raw: string; dropped: boolean }> {
  let dropped = false;
  let raw = '';
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let stop = false;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      const event: SseEvent = {
        id: message.id === undefined ? undefined : Number(message.id),
        event: message.event ?? 'message',
        data: JSON.parse(message.data) as unknown,
      };
      events.push(event);
      if (onEvent?.(event, events)) stop = true;
    },
    onComment(comment) {
      comments.push(comment.trim());
      if (onComment?.(comment.trim())) stop = true;
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    while (!stop) {
      // A connection that drops (the server died) ends the read the way it ends for a browser.
      const chunk = await reader.read().catch(() => undefined);
      if (!chunk) {
        dropped = true;
        break;
      }
      const { done, value } = chunk;
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      raw += text;
      parser.feed(text);
    }
  } finally {
    if (stop || dropped) await reader.cancel().catch(() => undefined);
    else reader.releaseLock();
  }
  return { events, comments, stoppedEarly: stop, raw, dropped };
}

/** The text of a stream's answer: its `message` deltas joined. */
export function answerText(events: SseEvent[]): string {
  return events
    .filter((e) => e.event === 'message')
    .map((e) => (e.data as { content: string }).content)
    .join('');
}

/** Parses a whole SSE text fed in pieces of `sizes` bytes (cycled): what a client sees when frames split. */
export function parseInPieces(raw: string, sizes: number[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent(message) {
      events.push({
        id: message.id === undefined ? undefined : Number(message.id),
        event: message.event ?? 'message',
        data: JSON.parse(message.data) as unknown,
      });
    },
  });
  for (let i = 0, k = 0; i < raw.length; k++) {
    const size = sizes[k % sizes.length] ?? 1;
    parser.feed(raw.slice(i, i + size));
    i += size;
  }
  return events;
}
