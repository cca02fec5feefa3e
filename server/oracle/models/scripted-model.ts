import type { ChatModel, ModelChunk, ModelMessage, ModelRequest, ModelTool } from './model.js';
import { scriptedRuleSet, type ScriptedPlan, type ScriptedRule } from './scripted-rules.js';

export type { ScriptedPlan } from './scripted-rules.js';

/** Options of the scripted model. */
export interface ScriptedModelOptions {
  /** Pause between streamed words, in ms (0: none). */
  delayMs: number;
  /** Rules tried before the built-in ones (from SCRIPTED_MODEL_RULES). */
  rules?: ScriptedRule[];
}

/**
 * The embedded default model: deterministic, offline, no API key. It answers from rules (a rules file first,
 * then the built-in ones, see scripted-rules.ts) and streams its answer word by word with a short pause, so
 * streaming, abort and re-join can be watched by hand. Given the same conversation it always says the same.
 */
export function createScriptedModel(options: ScriptedModelOptions): ChatModel & {
  /** The plan for a conversation, without streaming it (tests, and resuming a turn). */
  plan(messages: ModelMessage[], tools: ModelTool[]): ScriptedPlan;
} {
  const rules = scriptedRuleSet(options.rules ?? []);
  const plan = (messages: ModelMessage[], tools: ModelTool[]): ScriptedPlan => rules.plan(messages, tools);
  return {
    id: 'scripted',
    plan,
    async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
      const decided = plan(request.messages, request.tools);
      const resuming = request.continueFrom !== undefined;
      if (decided.reasoning && !resuming) {
        for (const word of words(decided.reasoning)) {
          if (request.signal.aborted) return;
          yield { type: 'reasoning', text: word };
          await pause(options.delayMs, request.signal);
        }
      }
      if (decided.component && !resuming) {
        yield { type: 'component', name: decided.component.name, args: decided.component.args };
      }
      let reply = decided.reply;
      if (request.continueFrom !== undefined) {
        reply = reply.startsWith(request.continueFrom) ? reply.slice(request.continueFrom.length) : reply;
      }
      for (const word of words(reply)) {
        if (request.signal.aborted) return;
        yield { type: 'text', text: word };
        await pause(options.delayMs, request.signal);
      }
      if (decided.call && !request.signal.aborted) yield { type: 'tool-call', call: decided.call };
    },
  };
}

/** Words with the whitespace before them, so that concatenating them gives the text back. */
function words(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

/** A pause between words; an abort is seen at the next word (a plain timer: an abortable one per word costs more). */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  await new Promise((resolve) => setTimeout(resolve, ms));
}
