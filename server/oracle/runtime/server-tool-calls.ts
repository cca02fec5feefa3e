import type { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { findUnsafeText } from '../../../contracts/unsafe-text.js';
import { formatZodIssues } from '../../http/zod-issues.js';
import type { ModelTool, ModelToolCall } from '../models/model.js';
import { toolOutputText, type ServerTool, type ToolContext } from './tools.js';

// A turn's server tools: how the model is told of them, and how one call runs (turn-loop.ts calls these).

export async function runServerTool(
  tool: ServerTool,
  call: ModelToolCall,
  ctx: ToolContext,
): Promise<{ status: 'done'; output: string } | { status: 'error'; error: string }> {
  // What no store accepts (a NUL, a lone surrogate, nesting past the limit) is refused before the handler runs.
  const unsafe = findUnsafeText(call.args, 'arguments');
  if (unsafe) return { status: 'error', error: `Invalid arguments for ${tool.name}: ${unsafe}` };
  const parsed = tool.parameters.safeParse(call.args);
  if (!parsed.success) {
    const issues = formatZodIssues(parsed.error.issues, { whole: 'arguments' });
    return { status: 'error', error: `Invalid arguments for ${tool.name}: ${issues}` };
  }
  try {
    return { status: 'done', output: toolOutputText(await tool.handler(parsed.data, ctx)) };
  } catch (err) {
    ctx.logger.warn({ err, tool: tool.name }, 'server tool failed');
    return { status: 'error', error: toolErrorText(tool.name, err) };
  }
}

/**
 * What the model (and so maybe the answer) is told of a tool's failure: the message of an error the tool threw
 * itself, but never a database's, a driver's or the system's (an error with a `code`, or a `severity` as
 * PostgreSQL's have): those are logged, and the model reads that the tool failed.
 */
export function toolErrorText(toolName: string, err: unknown): string {
  const from = err as { code?: unknown; severity?: unknown } | null;
  if (!(err instanceof Error) || from?.code !== undefined || from?.severity !== undefined) {
    return `The tool ${toolName} failed.`;
  }
  return err.message.slice(0, 500);
}

/** A server-tool list's lookup by name and its descriptions for the model, made once per list (lists are kept). */
const serverToolLists = new WeakMap<
  readonly ServerTool[],
  { byName: ReadonlyMap<string, ServerTool>; described: ModelTool[] }
>();

export function serverToolsOf(tools: readonly ServerTool[]): {
  byName: ReadonlyMap<string, ServerTool>;
  described: ModelTool[];
} {
  let known = serverToolLists.get(tools);
  if (!known) {
    known = {
      byName: new Map(tools.map((t) => [t.name, t])),
      described: tools.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: jsonSchemaOf(t),
      })),
    };
    serverToolLists.set(tools, known);
  }
  return known;
}

/** The JSON schema of a server tool's arguments. */
function jsonSchemaOf(tool: ServerTool): Record<string, unknown> {
  const { $schema: _drop, ...rest } = zodToJsonSchema(tool.parameters as z.ZodType, {
    target: 'openApi3',
  }) as Record<string, unknown>;
  return rest;
}
