import type { MessageStore } from '../store/messages.js';
import type { RunRow, RunStore } from '../store/runs.js';
import { firstIdOfAttempt, type RunEventLog, type RunEventRecord } from './event-log.js';

/** How far a run that lost its instance had got, from what the log and the database hold of it. */
export interface AnswerSoFar {
  /** The answer so far: rebuilt from the retained events when they hold at least the last checkpoint. */
  text: string;
  /** Every event of that text is in the log (so a client that re-joins gets each of them). */
  logged: boolean;
  /** It had started a tool (re-running the turn could repeat the tool's side effect). */
  calledTools: boolean;
}

/** Reads what a claimed run had done before its instance went (see {@link AnswerSoFar}). */
export async function answerSoFar(log: RunEventLog, row: RunRow): Promise<AnswerSoFar> {
  const records = await log.read(row.run_id, 0).catch(() => [] as RunEventRecord[]);
  const calledTools =
    row.tools_started ||
    records.some(
      (r) => r.event === 'tool_call' || r.event === 'browser_tool_call' || r.event === 'action_call',
    );
  if (records.length === 0) return { text: row.partial_text, logged: row.partial_text === '', calledTools };
  let text = '';
  for (const r of records) {
    if (r.event === 'message') text += r.data.content;
    if (r.event === 'run') {
      const { partialLength } = r.data;
      if (partialLength !== undefined) text = text.slice(0, partialLength);
    }
  }
  return text.length >= row.partial_text.length
    ? { text, logged: true, calledTools }
    : { text: row.partial_text, logged: false, calledTools };
}

/**
 * Ends a run nobody executes (`aborted` by its user, or `interrupted`): its answer so far is kept in history, and
 * its stream gets `done` with an id above every id of the attempt that was cut off. Nothing when it has ended
 * meanwhile.
 */
export async function endOrphan(
  deps: { runs: RunStore; messages: MessageStore; log: RunEventLog; retentionSeconds: number },
  row: RunRow,
  status: 'aborted' | 'interrupted',
): Promise<void> {
  const partialText = (await answerSoFar(deps.log, row)).text;
  const id = firstIdOfAttempt(row.attempt);
  if (!(await deps.runs.end(row.run_id, { status, partialText, lastEventId: id }))) return;
  if (partialText) {
    await deps.messages
      .insert({
        id: row.request_id,
        sessionId: row.session_id,
        type: 'ai',
        content: partialText,
        runStatus: status,
      })
      .catch(() => undefined);
  }
  await deps.log
    .append(row.run_id, { id, event: 'done', data: { status, partialText } })
    ?.catch(() => undefined);
  await deps.log.retain(row.run_id, deps.retentionSeconds).catch(() => undefined);
}
