import type { z } from 'zod';
import type { Logger } from '../../logger.js';

/** What a server tool may use while it runs. */
export interface ToolContext {
  userDid: string;
  sessionId: string;
  runId: string;
  requestId: string;
  /** The room of this conversation (a shared room named by the request, else the user–oracle pair). */
  roomId: string;
  /** The shared room named by the request or its session, if any. */
  sharedRoomId: string | undefined;
  /** Aborted when the turn is aborted. */
  signal: AbortSignal;
  logger: Logger;
  /** The turn's runtime state, filled by plugins before the prompt was compiled. */
  state: Record<string, unknown>;
  /** Shows a UI component in the chat (`render_component`, rendered by the SDK's `uiComponents`). */
  renderComponent(name: string, args: Record<string, unknown>): void;
}

/**
 * A tool that runs on the server. Its arguments are parsed with `parameters` before `handler` runs: bad
 * arguments, like a throw, become a tool error the model sees, never a failed request.
 */
export interface ServerTool<S extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  /** What the tool does and when to use it, in words a model can follow. */
  description: string;
  parameters: S;
  handler(args: z.output<S>, ctx: ToolContext): Promise<unknown>;
  /**
   * Whether a call waits for its user's approval before `handler` runs (a function decides per call, from the
   * model's arguments). The operator can require it for any tool by name (`ORACLE_TOOLS_NEED_APPROVAL`).
   */
  needsApproval?: boolean | ApprovalRule<z.output<S>>;
}

/** A per-call approval rule (declared as a method so a tool of any argument type fits a list of tools). */
type ApprovalRule<A> = { rule(args: A, ctx: ToolContext): boolean | Promise<boolean> }['rule'];

/** Declares a server tool with its argument type inferred from its schema. */
export function defineTool<S extends z.ZodTypeAny>(tool: ServerTool<S>): ServerTool<S> {
  return tool;
}

/** A tool result as the model and the history see it: text (JSON for structured results). */
export function toolOutputText(result: unknown): string {
  if (typeof result === 'string') return result;
  if (result === undefined) return 'null';
  return JSON.stringify(result);
}
