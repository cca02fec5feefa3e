import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createAbortGate, whenAnswered } from '../../../server/oracle/runs/abort-handshake.js';

// The abort handshake's two pieces on their own (issue 26): the gate opens on the answer or after its longest
// hold, and an answer counts as given when the response finishes or its connection closes.

const settled = async (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('createAbortGate', () => {
  it('opens when the answer is sent', async () => {
    let answer!: () => void;
    const gate = createAbortGate(new Promise<void>((r) => (answer = r)), 60_000);
    expect(await settled(gate.open, 20)).toBe(false);
    answer();
    expect(await settled(gate.open, 20)).toBe(true);
  });

  it('opens after its longest hold when the answer never goes out', async () => {
    const gate = createAbortGate(new Promise<void>(() => undefined), 50);
    expect(await settled(gate.open, 10)).toBe(false);
    expect(await settled(gate.open, 500)).toBe(true);
  });

  it('storedYet resolves once stored() is called', async () => {
    const gate = createAbortGate(Promise.resolve(), 50);
    expect(await settled(gate.storedYet, 20)).toBe(false);
    gate.stored();
    expect(await settled(gate.storedYet, 20)).toBe(true);
  });
});

describe('whenAnswered', () => {
  for (const event of ['finish', 'close'] as const) {
    it(`resolves on the response's '${event}'`, async () => {
      const res = new EventEmitter();
      const answered = whenAnswered(res);
      expect(await settled(answered, 20)).toBe(false);
      res.emit(event);
      expect(await settled(answered, 20)).toBe(true);
    });
  }
});
