import { randomInt } from 'node:crypto';
import type { FlowAccount, FlowFile, FlowStep } from './flow-file.js';
import { capture, fill, freshName, newIds, templateOf, unknownNames } from './flow-template.js';

/** Where a flow is replayed: the engine, or a gateway over HTTP; both with accounts a flow can create. */
export interface FlowTarget {
  /** One USSD request (the service code is the target's); answers the reply text. */
  send(request: { sessionId: string; phoneNumber: string; text: string }): Promise<string>;
  /** Creates an account of the flow's `accounts:` directly (not through the menus); answers its customer ID. */
  createAccount(account: FlowAccount & { phoneNumber: string }): Promise<string>;
  /** Words of the menus shaped like a customer ID, never taken for one (see flow-template.ts idLikeWords). */
  notIds?: ReadonlySet<string>;
}

/** One step as replayed: what was sent, what the flow expects and what came back, and the reply as a template. */
export interface ReplayedStep {
  step: FlowStep;
  /** The text sent (placeholders filled). */
  text: string;
  /** The expected reply (placeholders filled). */
  expected: string;
  actual: string;
  /** The actual reply with customer IDs written as placeholders: what an update records. */
  recorded: string;
}

export interface Replay {
  steps: ReplayedStep[];
  /** Every reply was the expected one. */
  ok: boolean;
  /** The flow with each `expect` replaced by the reply recorded now (for `npm run test:flows -- --update`). */
  recorded: FlowFile;
}

/**
 * Replays a flow with fresh session ids and phone numbers, so flows never see each other's state even on a
 * shared database: creates its accounts, sends each step's text and compares the reply with `expect`.
 * Never stops at a difference, so an update can record every step: a customer ID whose `{name}` could not
 * be captured from a changed reply is taken from the reply in order of appearance.
 */
export async function replayFlow(flow: FlowFile, target: FlowTarget): Promise<Replay> {
  const run = `${Date.now().toString(36)}${randomInt(1e9).toString(36)}`;
  const phones = new Map<string, string>();
  const phone = (alias: string): string => {
    const existing = phones.get(alias);
    if (existing) return existing;
    const fresh = `+2547${String(randomInt(1e8)).padStart(8, '0')}`;
    phones.set(alias, fresh);
    return fresh;
  };
  const vars = new Map<string, string>();
  const notIds = target.notIds ?? new Set<string>();
  for (const account of flow.accounts) {
    vars.set(account.ref, await target.createAccount({ ...account, phoneNumber: phone(account.phone) }));
  }

  const steps: ReplayedStep[] = [];
  for (const step of flow.steps) {
    const text = fill(step.text, vars);
    const actual = await target.send({
      sessionId: `flow-${run}-${step.session}`,
      phoneNumber: phone(step.phone),
      text,
    });
    const unknown = unknownNames(step.expect, vars);
    if (!capture(step.expect, actual, vars)) {
      // The reply changed shape (a menu change): bind the names the flow expects to the new IDs in order.
      newIds(actual, vars, notIds).forEach((id, i) => {
        const name = unknown[i];
        if (name !== undefined) vars.set(name, id);
      });
    }
    for (const id of newIds(actual, vars, notIds)) vars.set(freshName(new Set(vars.keys())), id);
    steps.push({ step, text, expected: fill(step.expect, vars), actual, recorded: templateOf(actual, vars) });
  }
  return {
    steps,
    ok: steps.every((s) => s.expected === s.actual),
    recorded: { ...flow, steps: steps.map((s) => ({ ...s.step, expect: s.recorded })) },
  };
}
