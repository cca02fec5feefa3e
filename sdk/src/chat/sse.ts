import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SERVER_EVENTS, type AnyEvent, type ServerEventName } from '../../../contracts/events.js';

/** One event read from the chat stream, with its numeric SSE id when it had one. */
export interface StreamEvent {
  id: number | undefined;
  event: AnyEvent;
}

const warned = new Set<string>();
const warnOnce = (key: string, message: string): void => {
  if (warned.has(key)) return;
  warned.add(key);
  console.warn(`[oracles-client-sdk] ${message}`);
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The reference oracle's forms of two events, read as this service's (../shared/facts/oracle-wire-protocol.md),
 * so that an app written for the reference works against either server:
 * - `done` as `{}` or with booleans `{aborted, interrupted, failed}` instead of `status`;
 * - `tool_call` with the call's id only in `eventId`, and the reference's wrapper `toolName: 'toolCall'` with
 *   the real name in `args.toolName`; `args` and `status` may be absent (`done` when an `output` came).
 * Anything else is passed through as it came.
 */
export function fromReferenceForm(name: string, data: unknown): unknown {
  if (!isRecord(data)) return data;
  if (name === 'done' && data['status'] === undefined) {
    const status =
      data['failed'] === true
        ? 'failed'
        : data['interrupted'] === true
          ? 'interrupted'
          : data['aborted'] === true
            ? 'aborted'
            : 'finished';
    return {
      status,
      ...(typeof data['partialText'] === 'string' ? { partialText: data['partialText'] } : {}),
    };
  }
  if (
    name === 'tool_call' &&
    (data['toolCallId'] === undefined || data['eventId'] === undefined || data['status'] === undefined)
  ) {
    const id = typeof data['toolCallId'] === 'string' ? data['toolCallId'] : data['eventId'];
    const args = isRecord(data['args']) ? { ...data['args'] } : {};
    let toolName = data['toolName'];
    if (toolName === 'toolCall' && typeof args['toolName'] === 'string') {
      toolName = args['toolName'];
      delete args['toolName'];
    }
    const status = data['status'] ?? (data['output'] !== undefined ? 'done' : 'isRunning');
    return { ...data, toolCallId: id, eventId: id, toolName, args, status };
  }
  return data;
}

/** Turns one parsed SSE message into a typed event; unknown names and invalid payloads are skipped. */
export function toStreamEvent(msg: EventSourceMessage): StreamEvent | undefined {
  const name = (msg.event ?? 'message') as ServerEventName;
  const schema = (SERVER_EVENTS as Record<string, (typeof SERVER_EVENTS)[ServerEventName] | undefined>)[name];
  if (!schema) {
    warnOnce(`event:${name}`, `ignoring unknown stream event "${name}"`);
    return undefined;
  }
  let data: unknown;
  try {
    data = JSON.parse(msg.data);
  } catch {
    warnOnce(`json:${name}`, `ignoring a "${name}" event whose data is not JSON`);
    return undefined;
  }
  const parsed = schema.safeParse(fromReferenceForm(name, data));
  if (!parsed.success) {
    warnOnce(`shape:${name}`, `ignoring a "${name}" event that does not match its schema`);
    return undefined;
  }
  const id = msg.id !== undefined && /^\d+$/.test(msg.id) ? Number(msg.id) : undefined;
  return { id, event: { eventName: name, payload: parsed.data } as AnyEvent };
}

/**
 * Reads a `text/event-stream` body and yields its events, one read at a time: each yielded array holds the
 * events completed by one network read (so a caller can render once per read). Events split across reads,
 * multi-line `data:`, comments (heartbeats) and CRLF line ends are handled by eventsource-parser.
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let batch: StreamEvent[] = [];
  const parser = createParser({
    onEvent: (msg) => {
      const ev = toStreamEvent(msg);
      if (ev) batch.push(ev);
    },
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (batch.length > 0) {
        const out = batch;
        batch = [];
        yield out;
      }
    }
  } finally {
    // Stopped early (the turn ended, or the chat detached): stop the body too.
    void reader.cancel().catch(() => undefined);
  }
}
