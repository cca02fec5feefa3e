/**
 * The language-model interface of the agent runtime: one streamed completion over a conversation, with the
 * tools the model may call. Implementations: the scripted model (embedded default, deterministic) and any
 * OpenAI-compatible endpoint.
 */

/** A message of the conversation as the model sees it. */
export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** A tool call the model made. */
export interface ModelToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** A tool offered to the model: its name, what it does, and the JSON schema of its arguments. */
export interface ModelTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One piece of a streamed completion. */
export type ModelChunk =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool-call'; call: ModelToolCall }
  /** A UI component to display (the scripted model's shortcut; other models render through tools). */
  | { type: 'component'; name: string; args: Record<string, unknown> };

/** What a completion is asked to do. */
export interface ModelRequest {
  messages: ModelMessage[];
  tools: ModelTool[];
  signal: AbortSignal;
  /**
   * Resuming a turn that was cut off: the answer so far. The model continues it; what it streams is appended
   * after this text.
   */
  continueFrom?: string | undefined;
}

/** A model the oracle can answer with. */
export interface ChatModel {
  readonly id: string;
  /** Streams the completion. Ends when the model stops or asks for tool results (tool-call chunks). */
  stream(request: ModelRequest): AsyncIterable<ModelChunk>;
}
