import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger.js';
import type { ControlBus } from '../../../server/oracle/runs/control-bus.js';
import { countingBus } from '../../helpers/oracle/counting-bus.js';
import { createApprovalGate } from '../../../server/oracle/runtime/approval-gate.js';
import { ApprovalStore, type ApprovalRow } from '../../../server/oracle/store/approvals.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';

describe('the approval gate: where a decision wakes the waiting call', () => {
  let db: TestDb;
  let store: ApprovalStore;
  beforeAll(async () => {
    db = await openTestDb();
    store = new ApprovalStore(db.kysely);
  });
  afterAll(() => db[Symbol.asyncDispose]());

  const gateOn = (bus: ControlBus) =>
    createApprovalGate({ store, bus, logger: createLogger('silent'), timeoutMs: 60_000 });

  const pending = (gate: ReturnType<typeof gateOn>, toolCallId: string): Promise<ApprovalRow> =>
    gate.request({
      toolCallId,
      runId: 'run_1',
      sessionId: 'session-1',
      userDid: 'did:key:owner',
      toolName: 'remember_fact',
      args: { content: 'Prefers tea' },
      expiresAt: gate.expiresAt(),
      resume: {},
    });

  it('decided on the instance where the call waits, the call has the decision at once, without the bus', async () => {
    const { bus, published } = countingBus();
    const gate = gateOn(bus);
    const row = await pending(gate, 'call_here');
    const waiting = gate.wait(row, new AbortController().signal);
    const result = await gate.decide('session-1', 'call_here', 'did:key:owner', { approved: true });
    expect(result.kind).toBe('decided');
    await expect(waiting).resolves.toMatchObject({ status: 'approved', decided_by: 'did:key:owner' });
    expect(published).toEqual([]);
    gate.close();
  });

  it('decided on another instance, the decision reaches the waiting call over the bus', async () => {
    const { bus, published } = countingBus();
    const there = gateOn(bus);
    const here = gateOn(bus);
    const row = await pending(there, 'call_there');
    const waiting = there.wait(row, new AbortController().signal);
    await here.decide('session-1', 'call_there', 'did:key:owner', { approved: false, reason: 'no' });
    await expect(waiting).resolves.toMatchObject({ status: 'denied', reason: 'no' });
    expect(published).toEqual([
      { type: 'approval_decided', toolCallId: 'call_there', sessionId: 'session-1' },
    ]);
    there.close();
    here.close();
  });
});
