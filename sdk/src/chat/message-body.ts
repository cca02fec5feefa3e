import type { SendMessageBody } from '../../../contracts/oracle.js';
import type { RegisteredAction } from '../tools/action-registry.js';
import { loadJsonSchemaConverter } from '../tools/json-schema.js';
import type { BrowserTool, IChatOptions, IMessage } from '../types.js';

/** A message's extra fields (beyond the spec's `sendMessage(message)`, as reference SDK 1.4.0). */
export type SendExtras = Pick<SendMessageBody, 'metadata' | 'attachments'>;

/** What a message advertises to the agent: its browser tools and agent-UI actions. */
export type Advertised = Pick<SendMessageBody, 'tools' | 'agActions'>;

/**
 * The browser tools and actions a message advertises (`tools`, `agActions` of `POST /messages/:sessionId`),
 * their zod schemas as JSON schema. Nothing to advertise gives `{}` without loading the converter (the
 * largest part of the library, loaded on the first message that needs it); an empty list is left out.
 */
async function advertisedTools(
  browserTools: readonly BrowserTool[],
  actions: readonly RegisteredAction[],
): Promise<Advertised> {
  if (browserTools.length === 0 && actions.length === 0) return {};
  const toJsonSchema = await loadJsonSchemaConverter();
  const tools = browserTools.map((t) => ({
    name: t.toolName,
    description: t.description,
    schema: toJsonSchema(t.schema),
    ...(t.needsApproval ? { needsApproval: true } : {}),
  }));
  const agActions = actions.map((a) => ({
    name: a.name,
    description: a.description,
    schema: toJsonSchema(a.parameters),
    hasRender: a.hasRender,
  }));
  return {
    ...(tools.length > 0 ? { tools } : {}),
    ...(agActions.length > 0 ? { agActions } : {}),
  };
}

/**
 * The body of `POST /messages/:sessionId` for a user's message: streamed, with the sending hook's model, the
 * user's time zone (left out where `Intl` has none), and what the message advertises ({@link advertisedTools}).
 */
export async function messageBody(
  text: string,
  extras: SendExtras,
  opts: Pick<IChatOptions, 'model'>,
  browserTools: readonly BrowserTool[],
  actions: readonly RegisteredAction[],
): Promise<SendMessageBody> {
  const body: SendMessageBody = { message: text, stream: true, ...extras };
  if (opts.model) body.model = opts.model;
  try {
    body.timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    // no Intl time zone: leave it out
  }
  return { ...body, ...(await advertisedTools(browserTools, actions)) };
}

const randomId = (): string =>
  typeof globalThis.crypto?.randomUUID === 'function'
    ? globalThis.crypto.randomUUID()
    : `local-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/** The user's message as the chat shows it until history has the stored one (a `local:` id). */
export function optimisticMessage(text: string): IMessage {
  return { id: `local:${randomId()}`, type: 'human', content: text, createdAt: new Date().toISOString() };
}
