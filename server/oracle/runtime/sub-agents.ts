import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ChatModel, ModelMessage } from '../models/model.js';
import type { SubAgent } from './plugin.js';
import { toolOutputText, type ServerTool } from './tools.js';

/** Most model calls of one sub-agent task. */
const SUB_AGENT_STEPS = 4;

const TaskArgs = z
  .object({ task: z.string().min(1).max(8000).describe('What the sub-agent should do, in full') })
  .strict();

/**
 * A sub-agent as a server tool: the model calls it with a task; a model run with the sub-agent's own prompt
 * and tools answers it, and that answer is the tool's output.
 */
export function subAgentTool(agent: SubAgent, model: ChatModel): ServerTool<typeof TaskArgs> {
  const tools = new Map((agent.tools ?? []).map((t) => [t.name, t]));
  return {
    name: agent.name,
    description: `${agent.description} (a sub-agent: give it the whole task; it answers with text)`,
    parameters: TaskArgs,
    async handler({ task }, ctx) {
      const messages: ModelMessage[] = [
        { role: 'system', content: agent.prompt },
        { role: 'user', content: task },
      ];
      let answer = '';
      for (let step = 0; step < SUB_AGENT_STEPS; step++) {
        let text = '';
        const calls: { id: string; name: string; args: Record<string, unknown> }[] = [];
        for await (const chunk of model.stream({
          messages,
          tools: [...tools.values()].map((t) => ({
            name: t.name,
            description: t.description,
            parameters: { type: 'object' },
          })),
          signal: ctx.signal,
        })) {
          if (chunk.type === 'text') text += chunk.text;
          if (chunk.type === 'tool-call') calls.push({ ...chunk.call, id: `call_${randomUUID()}` });
        }
        answer += text;
        if (calls.length === 0 || ctx.signal.aborted) break;
        messages.push({ role: 'assistant', content: text, toolCalls: calls });
        for (const call of calls) {
          const tool = tools.get(call.name);
          let content: string;
          if (!tool) content = `Error: there is no tool named ${call.name}.`;
          else {
            const parsed = tool.parameters.safeParse(call.args);
            content = parsed.success
              ? toolOutputText(
                  await tool.handler(parsed.data, ctx).catch((err: unknown) => `Error: ${String(err)}`),
                )
              : `Error: invalid arguments for ${call.name}`;
          }
          messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
        }
      }
      return answer;
    },
  };
}
