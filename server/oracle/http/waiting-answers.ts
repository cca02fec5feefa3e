import type { MessageDto } from '../../../contracts/oracle.js';
import type { ApprovalGate } from '../runtime/approval-gate.js';
import { toWaitingAnswer } from '../store/approvals.js';
import type { RunStore } from '../store/runs.js';

/**
 * The answers of a session's runs that wait for their user's approval (normally none, at most one), as history
 * shows them until their turns end (store/approvals.ts `toWaitingAnswer`). Read after the stored messages, so
 * a turn that ends in between shows in neither (the next read has it), never twice.
 */
export async function waitingAnswers(
  runs: Pick<RunStore, 'inFlight'>,
  approvals: Pick<ApprovalGate, 'pendingOf'>,
  sessionId: string,
): Promise<MessageDto[]> {
  const answers: MessageDto[] = [];
  for (const run of await runs.inFlight(sessionId)) {
    const pending = await approvals.pendingOf(run.run_id);
    if (pending.length > 0) answers.push(toWaitingAnswer(run.request_id, pending));
  }
  return answers;
}
