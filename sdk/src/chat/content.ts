import type { MessageDto } from '../../../contracts/oracle.js';
import type { IComponentMetadata, IMessage, MessageContent } from '../types.js';

type Part = string | IComponentMetadata;

const parts = (content: MessageContent): Part[] =>
  Array.isArray(content)
    ? content
    : typeof content === 'string'
      ? content === ''
        ? []
        : [content]
      : [content];

const pack = (list: Part[]): MessageContent =>
  list.length === 0 ? '' : list.length === 1 && typeof list[0] === 'string' ? list[0] : list;

/** The text of a message's content (its string parts joined). */
export function textOf(content: MessageContent): string {
  return parts(content)
    .filter((p): p is string => typeof p === 'string')
    .join('');
}

/**
 * Appends a text delta to the message's text. The text is always the first part and the parts follow in the
 * order they happened: the same layout history gives after a reload (it stores the text and the calls
 * apart), so a message looks the same live and reloaded.
 */
export function appendText(content: MessageContent, delta: string): MessageContent {
  if (typeof content === 'string') return content + delta;
  const list = parts(content);
  const first = list[0];
  if (typeof first === 'string') return pack([first + delta, ...list.slice(1)]);
  return pack(delta === '' ? list : [delta, ...list]);
}

/** Replaces the text of a message, keeping its components (text first, then the components). */
export function replaceText(content: MessageContent, text: string): MessageContent {
  const components = parts(content).filter((p): p is IComponentMetadata => typeof p !== 'string');
  return pack(text === '' ? components : [text, ...components]);
}

/** Adds a component part, or updates the one with the same `props.id` in place. */
export function upsertPart(
  content: MessageContent,
  id: string,
  update: (old: IComponentMetadata | undefined) => IComponentMetadata,
): MessageContent {
  const list = parts(content);
  const i = list.findIndex((p) => typeof p !== 'string' && p.props.id === id);
  if (i === -1) return [...list, update(undefined)];
  const next = list.slice();
  next[i] = update(list[i] as IComponentMetadata);
  return next;
}

/** Whether a content holds a part with this id. */
export function hasPart(content: MessageContent, id: string): boolean {
  return parts(content).some((p) => typeof p !== 'string' && p.props.id === id);
}

/**
 * A history message as the SDK shows it: the text, then one part per stored tool call (a component for
 * `component` calls, an action for `action`, a tool call otherwise), as the reference SDK builds it. The answer
 * of a run that waits for its user's approval (a call `awaiting_approval`) is not complete, and its waiting
 * call's part names the session and the turn, so that its approval card can decide it before the run is
 * re-joined.
 */
export function fromDto(dto: MessageDto, sessionId?: string): IMessage {
  let waiting = false;
  const components: IComponentMetadata[] = (dto.toolCalls ?? []).map((tc) => {
    const awaiting = tc.status === 'awaiting_approval';
    if (awaiting) waiting = true;
    const base = {
      id: tc.id,
      args: tc.args,
      status: tc.status ?? 'done',
      ...(tc.output !== undefined ? { output: tc.output } : {}),
      ...(tc.error !== undefined ? { error: tc.error } : {}),
      ...(awaiting && sessionId !== undefined ? { sessionId, requestId: dto.id } : {}),
    } as const;
    switch (tc.kind) {
      case 'component':
        return { name: tc.name, props: { ...base, kind: 'component' } };
      case 'action':
        return { name: tc.name, props: { ...base, toolName: tc.name, kind: 'action', isAgAction: true } };
      case 'browser_tool':
      case 'tool':
      case undefined:
        return {
          name: tc.name,
          props: { ...base, toolName: tc.name, kind: tc.kind ?? 'tool', isToolCall: true },
        };
    }
  });
  const message: IMessage = {
    id: dto.id,
    type: dto.type,
    content: pack(dto.content === '' ? components : [dto.content, ...components]),
    isComplete: !waiting,
  };
  if (dto.reasoning) message.reasoning = dto.reasoning;
  if (dto.toolCalls) message.toolCalls = dto.toolCalls;
  if (dto.runStatus) message.runStatus = dto.runStatus;
  if (dto.createdAt) message.createdAt = dto.createdAt;
  return message;
}
