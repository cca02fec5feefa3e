import { describe, expect, it } from 'vitest';
import { countingBus } from '../../helpers/oracle/counting-bus.js';
import { createFrontendBridge, type FrontendCall } from '../../../server/oracle/socket/frontend-bridge.js';

const call = (toolCallId: string): FrontendCall => ({
  kind: 'browser_tool',
  sessionId: 'session-1',
  userDid: 'did:key:owner',
  requestId: 'request-1',
  toolCallId,
  toolName: 'read_page_title',
  args: {},
  timeoutMs: 5_000,
  signal: new AbortController().signal,
});

const result = (toolCallId: string, userDid = 'did:key:owner') => ({
  type: 'frontend_result' as const,
  toolCallId,
  userDid,
  sessionId: 'session-1',
  result: { title: 'Docs' },
  error: undefined,
});

describe('the frontend bridge: a browser call and its result', () => {
  it('a result for a call that waits on this instance settles it without going over the bus', async () => {
    const { bus, published } = countingBus();
    const bridge = createFrontendBridge(bus, () => undefined);
    const waiting = bridge.call(call('call_here'));
    await bridge.answer(result('call_here'));
    await expect(waiting).resolves.toEqual({ ok: true, result: { title: 'Docs' } });
    expect(published).toEqual([]);
    bridge.close();
  });

  it('a result for a call that waits on another instance goes over the bus and settles it there', async () => {
    const { bus, published } = countingBus();
    const there = createFrontendBridge(bus, () => undefined);
    const here = createFrontendBridge(bus, () => undefined);
    const waiting = there.call(call('call_there'));
    await here.answer(result('call_there'));
    await expect(waiting).resolves.toEqual({ ok: true, result: { title: 'Docs' } });
    expect(published).toHaveLength(1);
    there.close();
    here.close();
  });

  it("another user's result for a call waiting here is dropped: the call waits on, nothing is published", async () => {
    const { bus, published } = countingBus();
    const bridge = createFrontendBridge(bus, () => undefined);
    let settled = false;
    const waiting = bridge.call(call('call_owned')).then((outcome) => {
      settled = true;
      return outcome;
    });
    await bridge.answer(result('call_owned', 'did:key:stranger'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    expect(published).toEqual([]);
    await bridge.answer(result('call_owned'));
    await expect(waiting).resolves.toMatchObject({ ok: true });
    bridge.close();
  });
});
