import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ChatModel, ModelChunk, ModelMessage, ModelRequest } from './model.js';

/** Where the OpenAI-compatible endpoint is and which model to ask. */
export interface OpenAiModelOptions {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  /** Per-request timeout of the HTTP call (the stream may last longer once it started). */
  timeoutMs?: number;
}

/**
 * A model behind any OpenAI-compatible Chat Completions endpoint (OpenAI, OpenRouter, vLLM, Ollama, …), through
 * the official `openai` package: streamed text, reasoning deltas (`reasoning_content` / `reasoning`, as such
 * servers send them) and tool calls assembled from their deltas.
 */
export function createOpenAiModel(options: OpenAiModelOptions): ChatModel {
  // `openai` is loaded at the first turn, not at start: a server on the scripted model (the default) never
  // pays for it (about a quarter of a second of start-up).
  let client: Promise<OpenAI> | undefined;
  const openAi = (): Promise<OpenAI> =>
    (client ??= import('openai').then(
      ({ default: OpenAI }) =>
        new OpenAI({
          baseURL: options.baseUrl,
          // The SDK refuses an empty key; local servers ignore it.
          apiKey: options.apiKey ?? 'none',
          timeout: options.timeoutMs ?? 60_000,
          maxRetries: 1,
        }),
    ));
  return {
    id: options.model,
    async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
      const messages = request.messages.map(toOpenAi);
      if (request.continueFrom) {
        messages.push({ role: 'assistant', content: request.continueFrom });
        messages.push({
          role: 'user',
          content:
            'Your previous answer was cut off. Continue it exactly where it stopped, without repeating anything.',
        });
      }
      const tools: ChatCompletionTool[] = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      const stream = await (
        await openAi()
      ).chat.completions.create(
        { model: options.model, messages, stream: true, ...(tools.length ? { tools } : {}) },
        { signal: request.signal },
      );
      const calls = new Map<number, { id: string; name: string; args: string }>();
      for await (const chunk of stream) {
        // OpenAI-compatible servers add the reasoning deltas under names the SDK does not declare.
        const delta:
          | (ChatCompletionChunk.Choice.Delta & { reasoning_content?: string; reasoning?: string })
          | undefined = chunk.choices[0]?.delta;
        if (!delta) continue;
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (reasoning) yield { type: 'reasoning', text: reasoning };
        if (delta.content) yield { type: 'text', text: delta.content };
        for (const part of delta.tool_calls ?? []) {
          const call = calls.get(part.index) ?? { id: '', name: '', args: '' };
          if (part.id) call.id = part.id;
          if (part.function?.name) call.name += part.function.name;
          if (part.function?.arguments) call.args += part.function.arguments;
          calls.set(part.index, call);
        }
      }
      for (const call of [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c)) {
        yield { type: 'tool-call', call: { id: call.id, name: call.name, args: parseArgs(call.args) } };
      }
    },
  };
}

/** Tool arguments as the model wrote them; unreadable JSON becomes `{}` plus a marker the tool can refuse. */
function parseArgs(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return { __unparsedArguments: text.slice(0, 2000) };
  }
}

function toOpenAi(message: ModelMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: JSON.stringify(c.args) },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}
