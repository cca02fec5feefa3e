import { randomUUID } from 'node:crypto';
import type { ServerEventName, ServerEventPayload } from '../../../contracts/events.js';
import type { BrowserToolSpec, MessageDto, StoredToolCall } from '../../../contracts/oracle.js';
import type { TurnOutcome, TurnRequest } from '../runs/turn.js';
import type { Logger } from '../../logger.js';
import type { ChatModel, ModelMessage, ModelTool, ModelToolCall } from '../models/model.js';
import type { FrontendBridge } from '../socket/frontend-bridge.js';
import { toolOutputText, type ServerTool, type ToolContext } from './tools.js';
import { approvalRecord, deniedText, type ApprovalResume, type TurnApprovals } from './approval-gate.js';
import { runServerTool, serverToolsOf } from './server-tool-calls.js';
import type { ApprovalRow } from '../store/approvals.js';

export type { ApprovalResume, TurnApprovals } from './approval-gate.js';
export { toolErrorText } from './server-tool-calls.js';

export type { TurnOutcome, TurnRequest } from '../runs/turn.js';

/** Sends one event of the turn (to the run's event log). */
export type TurnEmit = <N extends ServerEventName>(event: N, data: ServerEventPayload<N>) => void;

export interface TurnInput {
  sessionId: string;
  userDid: string;
  runId: string;
  requestId: string;
  roomId: string;
  sharedRoomId: string | undefined;
  request: TurnRequest;
  /** The thread up to this turn's user message (stored before the turn starts), oldest first. */
  history: MessageDto[];
  systemPrompt: string;
  state: Record<string, unknown>;
  /** Resuming after a crash: the answer so far, which the model continues. */
  continueFrom?: string | undefined;
  /** Resuming on another instance at a call that waits (or waited) for its user's approval. */
  resumeAt?: ApprovalRow | undefined;
}

export interface TurnDeps {
  model: ChatModel;
  /** Kept by the caller across turns: the model's descriptions of them are made once per list. */
  serverTools: readonly ServerTool[];
  bridge: FrontendBridge;
  toolTimeoutMs: number;
  logger: Logger;
  emit: TurnEmit;
  signal: AbortSignal;
  /** Absent: no tool waits for approval. */
  approvals?: TurnApprovals | undefined;
}

/** Where a tool call stands, as its events say it. */
type ToolCallState =
  | { status: 'isRunning' }
  | { status: 'done'; output: string }
  | { status: 'error' | 'denied'; error: string };

/** Most model calls of one turn (each tool round trip is one more). */
export const MAX_STEPS = 8;
/** Most messages of the thread sent to the model. */
const HISTORY_LIMIT = 50;

/**
 * One turn of the agent: call the model with the thread, the plugins' server tools and the request's browser
 * tools and agent-UI actions; run the tools it calls (server tools here, browser tools and actions in the
 * user's browser over the socket); give it their results; repeat until it answers without a tool call. Every
 * step is an event. A tool that fails, throws or gets bad arguments is a tool error the model sees.
 */
export async function runTurn(input: TurnInput, deps: TurnDeps): Promise<TurnOutcome> {
  const { emit, signal } = deps;
  const now = (): string => new Date().toISOString();
  const ref = { sessionId: input.sessionId, requestId: input.requestId };
  const outcome: TurnOutcome = {
    status: 'finished',
    text: input.continueFrom ?? '',
    reasoning: '',
    toolCalls: [],
  };

  const browserTools = byName(input.request.tools);
  const actions = byName(input.request.agActions);
  const { byName: serverTools, described } = serverToolsOf(deps.serverTools);
  const modelTools: ModelTool[] =
    browserTools.size === 0 && actions.size === 0
      ? described
      : [
          ...described,
          ...[...browserTools.values()].filter((t) => !serverTools.has(t.name)).map(fromSpec),
          ...[...actions.values()]
            .filter((a) => !serverTools.has(a.name) && !browserTools.has(a.name))
            .map(fromSpec),
        ];

  const resumed = input.resumeAt ? (input.resumeAt.resume as unknown as ApprovalResume) : undefined;
  const messages: ModelMessage[] = [{ role: 'system', content: input.systemPrompt }];
  if (resumed) {
    messages.push(...resumed.messages);
    outcome.text = resumed.text;
    outcome.reasoning = resumed.reasoning;
    outcome.toolCalls = [...resumed.toolCalls];
  } else {
    const history = input.history.slice(-HISTORY_LIMIT);
    const last = history[history.length - 1];
    messages.push(...historyToModel(history));
    if (last?.type !== 'human' || last.content !== input.request.message) {
      messages.push({ role: 'user', content: input.request.message });
    }
  }

  const renderComponent = (name: string, args: Record<string, unknown>): void => {
    const eventId = `cmp_${randomUUID()}`;
    emit('render_component', { ...ref, eventId, componentName: name, args, status: 'done' });
    outcome.toolCalls.push({ id: eventId, name, kind: 'component', args, status: 'done' });
  };
  /** The payload every event about `call` starts with: the turn, the call's id, the tool and its arguments. */
  const callPayload = (call: ModelToolCall) => ({
    ...ref,
    toolCallId: call.id,
    toolName: call.name,
    args: call.args,
  });
  /** A `tool_call` event (its `eventId` is the call's id) in the given state; the fields in the wire's order. */
  const emitToolCall = (call: ModelToolCall, state: ToolCallState): void =>
    emit('tool_call', {
      ...ref,
      toolCallId: call.id,
      eventId: call.id,
      toolName: call.name,
      args: call.args,
      ...state,
    });

  const toolContext: Omit<ToolContext, 'signal'> = {
    userDid: input.userDid,
    sessionId: input.sessionId,
    runId: input.runId,
    requestId: input.requestId,
    roomId: input.roomId,
    sharedRoomId: input.sharedRoomId,
    logger: deps.logger,
    state: input.state,
    renderComponent,
  };

  let reasoningOpen = false;
  try {
    for (let step = resumed?.step ?? 0; step < MAX_STEPS; step++) {
      if (resumed && step === resumed.step) {
        const stop = await runCalls(step, resumed.calls, resumed.index);
        if (stop) return stop;
        continue;
      }
      const calls: ModelToolCall[] = [];
      let stepText = '';
      for await (const chunk of deps.model.stream({
        messages,
        tools: modelTools,
        signal,
        continueFrom: step === 0 ? input.continueFrom : undefined,
      })) {
        if (signal.aborted) break;
        // Reasoning ends where the answer, a tool call or a component begins.
        if (reasoningOpen && chunk.type !== 'reasoning') {
          emit('reasoning', { ...ref, reasoning: '', isComplete: true });
          reasoningOpen = false;
        }
        switch (chunk.type) {
          case 'text':
            stepText += chunk.text;
            outcome.text += chunk.text;
            emit('message', { content: chunk.text, timestamp: now() });
            break;
          case 'reasoning':
            reasoningOpen = true;
            outcome.reasoning += chunk.text;
            emit('reasoning', { ...ref, reasoning: chunk.text, isComplete: false });
            break;
          case 'component':
            renderComponent(chunk.name, chunk.args);
            break;
          case 'tool-call':
            calls.push({ ...chunk.call, id: `call_${randomUUID()}` });
            break;
        }
      }
      if (reasoningOpen) {
        emit('reasoning', { ...ref, reasoning: '', isComplete: true });
        reasoningOpen = false;
      }
      if (signal.aborted) return { ...outcome, status: 'aborted' };
      if (calls.length === 0) return outcome;

      messages.push({ role: 'assistant', content: stepText, toolCalls: calls });
      const stop = await runCalls(step, calls, 0);
      if (stop) return stop;
    }
    deps.logger.warn({ runId: input.runId }, 'turn stopped after the most model calls a turn may make');
    return outcome;
  } catch (err) {
    if (signal.aborted) return { ...outcome, status: 'aborted' };
    deps.logger.error({ err, runId: input.runId }, 'turn failed');
    return { ...outcome, status: 'failed', error: 'The model failed to answer; try again.' };
  }

  /** Runs a step's calls from `from` on; answers the turn's outcome when it must stop there (an abort). */
  async function runCalls(
    step: number,
    calls: ModelToolCall[],
    from: number,
  ): Promise<TurnOutcome | undefined> {
    for (let index = from; index < calls.length; index++) {
      const call = calls[index]!;
      if (signal.aborted) return { ...outcome, status: 'aborted' };
      const stored = await runCall(call, { step, calls, index });
      outcome.toolCalls.push(stored);
      // A call that waited when the turn was aborted stays in history, denied with reason `aborted`.
      if (signal.aborted && stored.status === 'denied') return { ...outcome, status: 'aborted' };
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: toolMessageText(stored) });
    }
    return undefined;
  }

  /**
   * Asks the user about a call of `tool` when it needs approval (or picks up the ask a resumed turn was waiting
   * on) and waits for the decision. Answers undefined when the call needs none.
   */
  async function approvalOf(
    tool: ServerTool,
    call: ModelToolCall,
    at: { step: number; calls: ModelToolCall[]; index: number },
  ): Promise<ApprovalRow | undefined> {
    const approvals = deps.approvals;
    if (!approvals) return undefined;
    let row = input.resumeAt?.tool_call_id === call.id ? input.resumeAt : undefined;
    if (!row) {
      if (!(await approvals.needs(tool, call.args, { ...toolContext, signal }))) return undefined;
      const resume: ApprovalResume = {
        ...at,
        messages: messages.slice(1),
        text: outcome.text,
        reasoning: outcome.reasoning,
        toolCalls: outcome.toolCalls,
      };
      row = await approvals.gate.request({
        toolCallId: call.id,
        runId: input.runId,
        sessionId: input.sessionId,
        userDid: input.userDid,
        toolName: call.name,
        args: call.args,
        expiresAt: approvals.gate.expiresAt(),
        resume: resume as unknown as Record<string, unknown>,
      });
    }
    if (row.status === 'pending') {
      emit('tool_approval_requested', {
        ...callPayload(call),
        expiresAt: row.expires_at.toISOString(),
      });
      row = await approvals.gate.wait(row, signal);
    }
    emit('tool_approval_decided', {
      ...ref,
      toolCallId: call.id,
      approved: row.status === 'approved',
      decidedBy: row.decided_by ?? 'system',
      decidedAt: (row.decided_at ?? new Date()).toISOString(),
      ...(row.reason === null ? {} : { reason: row.reason }),
    });
    return row;
  }

  async function runCall(
    call: ModelToolCall,
    at: { step: number; calls: ModelToolCall[]; index: number },
  ): Promise<StoredToolCall> {
    const server = serverTools.get(call.name);
    if (server) {
      const approval = await approvalOf(server, call, at);
      const decided = approval && approvalRecord(approval);
      if (approval?.status === 'denied') {
        const error = deniedText(call.name, approval.reason);
        emitToolCall(call, { status: 'denied', error });
        return {
          id: call.id,
          name: call.name,
          kind: 'tool',
          args: call.args,
          status: 'denied',
          error,
          approval: decided,
        };
      }
      emitToolCall(call, { status: 'isRunning' });
      const result = await runServerTool(server, call, { ...toolContext, signal });
      emitToolCall(call, result);
      return {
        id: call.id,
        name: call.name,
        kind: 'tool',
        args: call.args,
        ...result,
        ...(decided ? { approval: decided } : {}),
      };
    }
    const browser = browserTools.get(call.name);
    const action = browser ? undefined : actions.get(call.name);
    if (!browser && !action) {
      const error = `There is no tool named ${call.name}.`;
      emitToolCall(call, { status: 'error', error });
      return { id: call.id, name: call.name, kind: 'tool', args: call.args, status: 'error', error };
    }
    const kind = browser ? 'browser_tool' : 'action';
    if (kind === 'browser_tool') {
      emitToolCall(call, { status: 'isRunning' });
      emit('browser_tool_call', callPayload(call));
    } else {
      emit('action_call', { ...callPayload(call), status: 'isRunning' });
    }
    const answer = await deps.bridge.call({
      kind,
      sessionId: input.sessionId,
      userDid: input.userDid,
      requestId: input.requestId,
      toolCallId: call.id,
      toolName: call.name,
      args: call.args,
      // A browser tool the app asks its user about may wait as long as an approval does.
      timeoutMs:
        browser?.needsApproval && deps.approvals
          ? deps.toolTimeoutMs + deps.approvals.gate.timeoutMs
          : deps.toolTimeoutMs,
      signal,
    });
    const result = answer.ok
      ? { status: 'done' as const, output: toolOutputText(answer.result) }
      : { status: 'error' as const, error: answer.error };
    if (kind === 'browser_tool') emitToolCall(call, result);
    else emit('action_call', { ...callPayload(call), ...result });
    return { id: call.id, name: call.name, kind, args: call.args, ...result };
  }
}

/** What the model reads as a call's result. */
function toolMessageText(stored: StoredToolCall): string {
  if (stored.status === 'denied') return `Error: ${deniedText(stored.name, stored.approval?.reason, true)}`;
  if (stored.status === 'error') return `Error: ${stored.error ?? 'failed'}`;
  return stored.output ?? '';
}

/** Read-only and empty: the browser tools or actions of a request that sends none (most send no actions). */
const NONE: ReadonlyMap<string, never> = new Map<string, never>();

function byName<T extends { name: string }>(specs: readonly T[] | undefined): ReadonlyMap<string, T> {
  return specs?.length ? new Map(specs.map((s) => [s.name, s])) : NONE;
}

function fromSpec(spec: BrowserToolSpec): ModelTool {
  return { name: spec.name, description: spec.description, parameters: spec.schema };
}

function historyToModel(history: MessageDto[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of history) {
    if (m.type === 'human') {
      out.push({ role: 'user', content: m.content });
      continue;
    }
    const calls = (m.toolCalls ?? []).filter((c) => c.kind !== 'component' && c.status !== 'isRunning');
    if (calls.length) {
      out.push({
        role: 'assistant',
        content: '',
        toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
      });
      for (const c of calls) {
        out.push({
          role: 'tool',
          toolCallId: c.id,
          name: c.name,
          content: toolMessageText(c),
        });
      }
    }
    out.push({ role: 'assistant', content: m.content });
  }
  return out;
}
