import { useChat, type IMessage } from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockOracle, providerFor, session, withMockServer } from './harness.js';

withMockServer();

const toolPart = (m: IMessage | undefined) =>
  (Array.isArray(m?.content) ? m.content : []).find((p) => typeof p !== 'string');

/** The mocked oracle with one scripted call that needs approval, and a chat of its session. */
function chatWithApproval() {
  const oracle = mockOracle({
    sessions: [session()],
    script: [
      { type: 'text', text: 'Let me save that. ' },
      {
        type: 'tool_call',
        toolName: 'remember_fact',
        args: { content: 'tea' },
        output: 'ok',
        needsApproval: true,
      },
      { type: 'text', text: 'Done.' },
    ],
  });
  const hook = renderHook(
    () =>
      useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: () => {} }),
    { wrapper: providerFor(oracle) },
  );
  return { oracle, ...hook };
}

describe('the MSW kit scripts tool calls that wait for approval', () => {
  it('a step with needsApproval waits: pendingApprovals lists it, approve() lets it run, a second decision is 409', async () => {
    const { oracle, result } = chatWithApproval();
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('remember that I like tea'));
    await waitFor(() => expect(result.current.pendingApprovals).toHaveLength(1));
    const [pending] = result.current.pendingApprovals;
    expect(pending).toMatchObject({ toolName: 'remember_fact', args: { content: 'tea' } });
    expect(oracle.control.pendingApprovals()).toEqual([pending]);
    expect(result.current.status).toBe('streaming');
    await act(() => result.current.approve(pending!.toolCallId));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(toolPart(result.current.messages.at(-1))).toMatchObject({
      props: { status: 'done', output: '"ok"' },
    });
    await expect(result.current.approve(pending!.toolCallId)).rejects.toMatchObject({ status: 409 });
  });

  it('history shows the waiting call, as the oracle does: a chat mounted mid-approval draws it and can approve it', async () => {
    const { oracle, result } = chatWithApproval();
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('remember that I like tea'));
    await waitFor(() => expect(result.current.pendingApprovals).toHaveLength(1));
    // A reload while the call waits: a second chat of the session, from history and the run.
    const reloaded = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: () => {},
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(reloaded.result.current.pendingApprovals).toHaveLength(1));
    const [pending] = reloaded.result.current.pendingApprovals;
    expect(toolPart(reloaded.result.current.messages.at(-1))).toMatchObject({
      props: { status: 'awaiting_approval', args: { content: 'tea' } },
    });
    // The kit's history itself, as the oracle's: the newest page and the legacy list end with the answer so far
    // holding the waiting call; an older page does not.
    const read = async (path: string) =>
      (await (
        await fetch(`${oracle.control.apiUrl}${path}`, { headers: { 'x-ucan-delegation': 'token' } })
      ).json()) as { messages: Record<string, unknown>[] };
    const waitingAnswer = {
      type: 'ai',
      content: 'Let me save that. ',
      toolCalls: [
        {
          id: pending!.toolCallId,
          name: 'remember_fact',
          kind: 'tool',
          args: { content: 'tea' },
          status: 'awaiting_approval',
          expiresAt: pending!.expiresAt,
        },
      ],
    };
    expect((await read('/sessions/ses_1/messages')).messages.at(-1)).toMatchObject(waitingAnswer);
    expect((await read('/messages/ses_1')).messages.at(-1)).toMatchObject(waitingAnswer);
    expect((await read('/sessions/ses_1/messages?before=0')).messages).toEqual([]);
    await act(() => reloaded.result.current.approve(pending!.toolCallId));
    await waitFor(() => expect(reloaded.result.current.status).toBe('ready'));
    expect(toolPart(reloaded.result.current.messages.at(-1))).toMatchObject({ props: { status: 'done' } });
  });

  it('the test can decide for the user (control.decideApproval): denied, the call does not run and the turn goes on', async () => {
    const { oracle, result } = chatWithApproval();
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('remember that I like tea'));
    await waitFor(() => expect(oracle.control.pendingApprovals()).toHaveLength(1));
    const { toolCallId } = oracle.control.pendingApprovals()[0]!;
    expect(oracle.control.decideApproval(toolCallId, false, 'not now')).toBe(true);
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(result.current.pendingApprovals).toEqual([]);
    expect(toolPart(result.current.messages.at(-1))).toMatchObject({
      props: {
        status: 'denied',
        error:
          'The user declined to run remember_fact (reason: not now). Do not call it again for this request.',
      },
    });
    expect(oracle.control.decideApproval(toolCallId, true)).toBe(false);
  });
});
