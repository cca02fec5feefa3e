import type {
  ActionCallEvent,
  BrowserToolCallEvent,
  ClientEventName,
  ClientEventPayload,
} from '../../../contracts/events.js';
import type { ActionRegistry } from '../tools/action-registry.js';
import { runCall, type CallOutcome } from '../tools/run-call.js';
import type { BrowserTool } from '../types.js';

export interface BrowserCallsDeps {
  sessionId: string;
  /** The browser tools of every `useChat` of the session, read at call time. */
  tools: () => Record<string, BrowserTool>;
  actions: ActionRegistry;
  /** Sends a result back on the socket. */
  emit: <N extends ClientEventName>(name: N, payload: ClientEventPayload<N>) => void;
  /** Asks the user about a call of a tool with `needsApproval` (see `useChat`'s `pendingApprovals`). */
  ask: (call: BrowserToolCallEvent) => Promise<{ approved: boolean; reason?: string | undefined }>;
}

/**
 * Runs the agent's calls in the user's tab: browser tools (`browser_tool_call` → `tool_result`) and agent-UI
 * actions (`action_call` → `action_call_result`), each at most once per `toolCallId` (a replayed or repeated
 * event never runs one twice), with arguments parsed by their zod schema. Unknown names, invalid arguments and
 * throwing functions become error results, never throws.
 */
export class BrowserCalls {
  readonly #executed = new Set<string>();

  readonly #deps: BrowserCallsDeps;

  constructor(deps: BrowserCallsDeps) {
    this.#deps = deps;
  }

  /** Whether a call id has already run (or is running). */
  has(toolCallId: string): boolean {
    return this.#executed.has(toolCallId);
  }

  /** Runs a browser tool and sends its result; undefined when that call already ran. */
  async runBrowserTool(call: BrowserToolCallEvent): Promise<CallOutcome | undefined> {
    if (this.#executed.has(call.toolCallId)) return undefined;
    this.#executed.add(call.toolCallId);
    const tools = this.#deps.tools();
    const tool = tools[call.toolName] ?? Object.values(tools).find((t) => t.toolName === call.toolName);
    const rule = tool?.needsApproval;
    const needs =
      typeof rule === 'function' ? await Promise.resolve(rule(call.args as never)).catch(() => true) : rule;
    if (needs === true) {
      const decision = await this.#deps.ask(call);
      if (!decision.approved) {
        const error = `The user declined to run ${call.toolName} (${decision.reason ? `reason: ${decision.reason}` : 'no reason given'}).`;
        this.#deps.emit('tool_result', { toolCallId: call.toolCallId, result: null, error });
        return { result: null, error, denied: true };
      }
    }
    const outcome = await runCall(
      tool ? { schema: tool.schema, fn: (args: never) => tool.fn(args) } : undefined,
      call.toolName,
      call.args,
      'browser tool',
    );
    this.#deps.emit('tool_result', {
      toolCallId: call.toolCallId,
      result: outcome.result,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    });
    return outcome;
  }

  /** Runs an action's handler and sends its result; undefined when that call already ran. */
  async runAction(call: ActionCallEvent): Promise<CallOutcome | undefined> {
    if (this.#executed.has(call.toolCallId)) return undefined;
    this.#executed.add(call.toolCallId);
    const action = this.#deps.actions.get(call.toolName);
    const outcome = await runCall(
      action ? { schema: action.parameters, fn: action.handler } : undefined,
      call.toolName,
      call.args ?? {},
      'action',
    );
    this.#deps.emit('action_call_result', {
      toolCallId: call.toolCallId,
      sessionId: this.#deps.sessionId,
      result: outcome.error !== undefined ? { success: false, error: outcome.error } : outcome.result,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    });
    return outcome;
  }
}
