import { NEW_CHAT_TITLE, type StoredToolCall } from '../../../contracts/oracle.js';
import type { UserPreferences } from '../../../contracts/preferences.js';
import type { MockRun } from './mock-run.js';
import { awaitResult, emitTo, nextId, now, sleep, waitForSocket, type MockState } from './mock-state.js';
import type { MockStep } from './types.js';

/** Who decided a scripted approval, as `tool_approval_decided` says (the mock does not read the tokens' DID). */
const MOCK_USER = 'did:key:mock-user';

/** The user-preferences plugin's tool: a scripted call of it changes the mocked preferences. */
const SET_USER_PREFERENCES = 'set_user_preferences';

/** Merges a `set_user_preferences` call into the mocked preferences (`null` clears a field). */
function setPreferences(state: MockState, args: Record<string, unknown>): void {
  const next: Record<string, unknown> = { ...(state.preferences ?? {}) };
  for (const [k, v] of Object.entries(args)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  next['updatedAt'] = now();
  state.preferences = next as UserPreferences;
}

/**
 * Fails the turn of a scripted browser tool call or action whose session had no connected socket in time: the
 * call would go nowhere and the turn would hang with the tool running. The error is the turn's `error` event
 * (so `useChat` shows it) and is kept in `control.errors`.
 */
function failWithoutSocket(
  state: MockState,
  run: MockRun,
  step: Extract<MockStep, { type: 'browser_tool_call' | 'action_call' }>,
  index: number,
): void {
  const handshakes = state.handshakes.filter((h) => h.query['sessionId'] === run.sessionId);
  const accepted = handshakes.filter((h) => h.accepted).length;
  const error = new Error(
    `MSW kit: the scripted ${step.type} "${step.toolName}" (step ${index + 1}) of session ${run.sessionId} ` +
      `found no connected socket of that session within ${state.socketWait} ms (handshakes of it so far: ` +
      `${handshakes.length - accepted} refused, ${accepted} accepted). Wait for \`isRealTimeConnected\` ` +
      'before sending, or raise `socketWaitMs`.',
  );
  state.errors.push(error);
  run.append('error', { error: error.message, timestamp: now() });
  run.finish('failed');
}

/**
 * Streams `tool_approval_requested` for a scripted call and waits for its decision (the route or
 * `control.decideApproval`; an abort denies it), then streams `tool_approval_decided`.
 */
async function awaitApproval(
  state: MockState,
  run: MockRun,
  call: {
    sessionId: string;
    requestId: string;
    toolCallId: string;
    toolName: string;
    args: Record<string, unknown>;
  },
): Promise<{ approved: boolean; reason?: string }> {
  const { sessionId, requestId, toolCallId, toolName, args } = call;
  const pending = { toolCallId, toolName, args, expiresAt: new Date(Date.now() + 600_000).toISOString() };
  let settled = false;
  const decided = new Promise<{ approved: boolean; reason?: string }>((decide) =>
    state.approvals.set(toolCallId, { pending, sessionId, runId: run.runId, decide, decided: false }),
  );
  const requested = { sessionId, requestId, ...pending };
  run.append('tool_approval_requested', requested);
  emitTo(state, sessionId, 'tool_approval_requested', requested);
  const byAbort = { approved: false, reason: 'aborted' };
  const aborted = (async () => {
    while (!run.abortRequested && !settled) await sleep(20);
    return byAbort;
  })();
  const decision = await Promise.race([decided, aborted]);
  settled = true;
  const entry = state.approvals.get(toolCallId);
  if (entry) entry.decided = true;
  const payload = {
    sessionId,
    requestId,
    toolCallId,
    approved: decision.approved,
    decidedBy: decision === byAbort ? 'system' : MOCK_USER,
    decidedAt: now(),
    ...(decision.reason ? { reason: decision.reason } : {}),
  };
  run.append('tool_approval_decided', payload);
  emitTo(state, sessionId, 'tool_approval_decided', payload);
  return decision;
}

/** Executes a turn's script into its run; the streams read the run, and history gets the turn at its end. */
export async function executeScript(
  state: MockState,
  run: MockRun,
  steps: MockStep[],
  userMessage: string,
): Promise<void> {
  const { sessionId, requestId } = run;
  const toolCalls: StoredToolCall[] = [];
  const pause = () => (state.stepDelay > 0 ? sleep(state.stepDelay) : Promise.resolve());
  run.append('run', { runId: run.runId, requestId, sessionId });
  for (const [index, step] of steps.entries()) {
    if (run.abortRequested) break;
    switch (step.type) {
      case 'text':
      case 'reasoning': {
        const chunks =
          step.type === 'text' && step.chunk === 'whole'
            ? [step.text]
            : (step.text.match(/\S+\s*|\s+/g) ?? []);
        for (const chunk of chunks) {
          if (run.abortRequested) break;
          await pause();
          if (step.type === 'text') {
            run.text += chunk;
            run.append('message', { content: chunk, timestamp: now() });
          } else {
            run.append('reasoning', { sessionId, requestId, reasoning: chunk, isComplete: false });
          }
        }
        if (step.type === 'reasoning')
          run.append('reasoning', { sessionId, requestId, reasoning: '', isComplete: true });
        break;
      }
      case 'tool_call': {
        await pause();
        const toolCallId = nextId('call');
        const args = step.args ?? {};
        const base = {
          sessionId,
          requestId,
          toolCallId,
          eventId: toolCallId,
          toolName: step.toolName,
          args,
        };
        // With needsApproval it waits for the decision; denied, it does not run.
        const decision = step.needsApproval ? await awaitApproval(state, run, base) : undefined;
        let end:
          | (typeof base & { status: 'done'; output: string })
          | (typeof base & { status: 'error' | 'denied'; error: string });
        if (decision && !decision.approved) {
          const why = decision.reason ? `reason: ${decision.reason}` : 'no reason given';
          const error = `The user declined to run ${step.toolName} (${why}). Do not call it again for this request.`;
          end = { ...base, status: 'denied', error };
        } else {
          run.append('tool_call', { ...base, status: 'isRunning' });
          emitTo(state, sessionId, 'tool_call', { ...base, status: 'isRunning' });
          await pause();
          if (step.toolName === SET_USER_PREFERENCES && step.error === undefined) setPreferences(state, args);
          end =
            step.error !== undefined
              ? { ...base, status: 'error', error: step.error }
              : { ...base, status: 'done', output: JSON.stringify(step.output ?? null) };
        }
        run.append('tool_call', end);
        emitTo(state, sessionId, 'tool_call', end);
        toolCalls.push({
          id: toolCallId,
          name: step.toolName,
          kind: 'tool',
          args,
          status: end.status,
          ...(end.status === 'done' ? { output: end.output } : { error: end.error }),
        });
        break;
      }
      case 'render_component': {
        await pause();
        const eventId = nextId('cmp');
        const payload = {
          sessionId,
          requestId,
          eventId,
          componentName: step.componentName,
          args: step.args,
          status: 'done' as const,
        };
        run.append('render_component', payload);
        emitTo(state, sessionId, 'render_component', payload);
        toolCalls.push({
          id: eventId,
          name: step.componentName,
          kind: 'component',
          args: step.args,
          status: 'done',
        });
        break;
      }
      case 'browser_tool_call': {
        await pause();
        // The call runs in the browser over the socket: not before the session's socket is there.
        const connected = await waitForSocket(state, sessionId);
        if (run.abortRequested) break;
        if (!connected) {
          failWithoutSocket(state, run, step, index);
          break;
        }
        const toolCallId = nextId('btc');
        const payload = { sessionId, requestId, toolCallId, toolName: step.toolName, args: step.args };
        run.append('browser_tool_call', payload);
        const answer = awaitResult(state, toolCallId);
        emitTo(state, sessionId, 'browser_tool_call', payload);
        const r = await answer;
        toolCalls.push({
          id: toolCallId,
          name: step.toolName,
          kind: 'browser_tool',
          args: step.args,
          status: r.error !== undefined ? 'error' : 'done',
          ...(r.error !== undefined ? { error: r.error } : { output: JSON.stringify(r.result ?? null) }),
        });
        break;
      }
      case 'action_call': {
        await pause();
        const connected = await waitForSocket(state, sessionId);
        if (run.abortRequested) break;
        if (!connected) {
          failWithoutSocket(state, run, step, index);
          break;
        }
        const toolCallId = nextId('act');
        const start = {
          sessionId,
          requestId,
          toolCallId,
          toolName: step.toolName,
          args: step.args,
          status: 'isRunning' as const,
        };
        run.append('action_call', start);
        const answer = awaitResult(state, toolCallId);
        emitTo(state, sessionId, 'action_call', start);
        const r = await answer;
        const end =
          r.error !== undefined
            ? { ...start, status: 'error' as const, error: r.error }
            : { ...start, status: 'done' as const, output: JSON.stringify(r.result ?? null) };
        run.append('action_call', end);
        toolCalls.push({
          id: toolCallId,
          name: step.toolName,
          kind: 'action',
          args: step.args,
          status: end.status,
          ...(end.status === 'done' ? { output: end.output } : { error: r.error }),
        });
        break;
      }
      case 'error':
        run.append('error', { error: step.error, timestamp: now() });
        run.finish('failed');
        break;
      case 'delay':
        await sleep(step.ms);
        break;
      case 'drop':
        run.dropStreams();
        break;
    }
    if (run.ended) break;
  }
  if (!run.ended) run.finish(run.abortRequested ? 'aborted' : 'finished');
  const thread = state.history.get(sessionId) ?? [];
  const firstQuestion = !thread.some((m) => m.type === 'human');
  thread.push({ id: nextId('msg'), type: 'human', content: userMessage, createdAt: run.createdAt });
  thread.push({
    id: requestId,
    type: 'ai',
    content: run.text,
    createdAt: now(),
    isComplete: true,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(run.status !== 'finished' && run.status !== 'running'
      ? { runStatus: run.status as 'aborted' | 'interrupted' | 'failed' }
      : {}),
  });
  state.history.set(sessionId, thread);
  const session = state.sessions.find((s) => s.sessionId === sessionId);
  if (session) {
    session.lastUpdatedAt = now();
    // As the oracle: a session given no title is "New chat" until its first question names it.
    if (!session.title || (firstQuestion && session.title === NEW_CHAT_TITLE))
      session.title = userMessage.slice(0, 40);
  }
}
