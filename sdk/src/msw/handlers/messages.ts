import { http, HttpResponse, type HttpHandler } from 'msw';
import {
  oracleContract,
  type MessageDto,
  type RunInfo,
  type SendMessageBody,
  type TranscriptPage,
} from '../../../../contracts/oracle.js';
import { MockRun } from '../mock-run.js';
import { errorBody, guard, latestRun, nextId, routeUrl, type MockState } from '../mock-state.js';
import { executeScript } from '../script-runner.js';

const eventStream = (run: MockRun, after: number, signal: AbortSignal): Response =>
  new Response(run.stream(after, signal), {
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-request-id': run.requestId,
      'x-run-id': run.runId,
    },
  });

const transcriptPage = (thread: MessageDto[], query: URLSearchParams): TranscriptPage => {
  const limit = Math.min(200, Math.max(1, Number(query.get('limit') ?? 20)));
  const before = query.get('before');
  const after = query.get('after');
  let start: number;
  let end: number;
  if (before !== null) {
    end = Math.max(0, Number(before));
    start = Math.max(0, end - limit);
  } else if (after !== null) {
    start = Math.min(thread.length, Number(after));
    end = Math.min(thread.length, start + limit);
  } else {
    end = thread.length;
    start = Math.max(0, end - limit);
  }
  return {
    messages: thread.slice(start, end),
    prevCursor: start > 0 ? String(start) : null,
    nextCursor: end < thread.length ? String(end) : null,
    hasOlder: start > 0,
    hasNewer: end < thread.length,
  };
};

/**
 * As the oracle: the answers of the session's runs whose calls wait for approval, as history ends with them
 * until their turns end: the answer so far (its request id, no `isComplete`) with each waiting call
 * `awaiting_approval` and its `expiresAt`.
 */
const waitingAnswers = (state: MockState, sessionId: string): MessageDto[] => {
  const answers: MessageDto[] = [];
  for (const run of state.runs.values()) {
    if (run.sessionId !== sessionId || run.ended) continue;
    const waiting = [...state.approvals.values()].filter((a) => a.runId === run.runId && !a.decided);
    if (waiting.length === 0) continue;
    answers.push({
      id: run.requestId,
      type: 'ai',
      content: run.text,
      toolCalls: waiting.map(({ pending }) => ({
        id: pending.toolCallId,
        name: pending.toolName,
        kind: 'tool' as const,
        args: pending.args,
        status: 'awaiting_approval' as const,
        expiresAt: pending.expiresAt,
      })),
    });
  }
  return answers;
};

/** History (paged and legacy), turns (send, abort), and durable runs (pick-up, re-join). */
export function messageHandlers(state: MockState): HttpHandler[] {
  const url = (path: string) => routeUrl(state, path);
  const notFound = (): Response => errorBody(404, 'session_not_found', 'Session not found.');
  return [
    http.get(url(oracleContract.transcript.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const g = await guard(state, request, `/sessions/${sessionId}/messages`);
      if (g.refused) return g.refused;
      if (state.options.legacyHistoryOnly) return errorBody(404, 'not_found', 'No such route.');
      const thread = state.history.get(sessionId);
      if (!thread) return notFound();
      const query = new URL(request.url).searchParams;
      const page = transcriptPage(thread, query);
      // The newest page (no cursor) ends with the answers that wait for approval, as the oracle's does.
      if (query.get('before') === null && query.get('after') === null)
        page.messages = [...page.messages, ...waitingAnswers(state, sessionId)];
      return HttpResponse.json<TranscriptPage>(page);
    }),
    http.get(url(oracleContract.currentRun.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const g = await guard(state, request, `/sessions/${sessionId}/run`);
      if (g.refused) return g.refused;
      const run = latestRun(state, sessionId);
      if (run) {
        const pending = [...state.approvals.values()].filter((a) => a.sessionId === sessionId && !a.decided);
        const info = run.info();
        if (pending.length === 0 || run.ended) return HttpResponse.json<{ run: RunInfo }>({ run: info });
        const pendingApprovals = pending.map((a) => a.pending);
        return HttpResponse.json<{ run: RunInfo }>({
          run: { ...info, status: 'awaiting_approval', pendingApprovals },
        });
      }
      // As the oracle: an unknown session is 404, a session with no run yet 204 (no body).
      if (!state.history.has(sessionId)) return notFound();
      return new HttpResponse(null, { status: 204 });
    }),
    http.post(url(oracleContract.decideToolApproval.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const toolCallId = String(params['toolCallId']);
      const g = await guard<{ approved?: unknown; reason?: unknown } | undefined>(
        state,
        request,
        `/sessions/${sessionId}/tool-approvals/${toolCallId}`,
      );
      if (g.refused) return g.refused;
      const body = g.body;
      if (
        typeof body?.approved !== 'boolean' ||
        (body.reason !== undefined && typeof body.reason !== 'string')
      )
        return errorBody(400, 'bad_request', 'The body must be {approved: boolean, reason?: string}.');
      const waiting = state.approvals.get(toolCallId);
      if (!waiting || waiting.sessionId !== sessionId)
        return errorBody(
          404,
          'approval_not_found',
          'No tool call of yours waits for approval under this id.',
        );
      if (waiting.decided)
        return errorBody(409, 'approval_already_decided', 'This tool call was decided already.');
      waiting.decided = true;
      const reason = typeof body.reason === 'string' ? body.reason : undefined;
      waiting.decide({ approved: body.approved, ...(reason ? { reason } : {}) });
      return HttpResponse.json({
        toolCallId,
        approved: body.approved,
        decidedBy: 'did:key:mock-user',
        decidedAt: new Date().toISOString(),
        ...(reason ? { reason } : {}),
      });
    }),
    http.post(url(oracleContract.abort.path), async ({ request }) => {
      const g = await guard<{ sessionId?: string } | undefined>(state, request, '/messages/abort');
      if (g.refused) return g.refused;
      if (typeof g.body?.sessionId !== 'string')
        return errorBody(400, 'bad_request', 'sessionId is required.');
      const run = latestRun(state, g.body.sessionId);
      const live = run !== undefined && !run.ended;
      if (run && live) run.abortRequested = true;
      return HttpResponse.json<{ success: boolean }>({ success: live });
    }),
    http.get(url(oracleContract.history.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const g = await guard(state, request, `/messages/${sessionId}`);
      if (g.refused) return g.refused;
      const thread = state.history.get(sessionId);
      if (!thread) return notFound();
      return HttpResponse.json<{ messages: MessageDto[] }>({
        messages: [...thread, ...waitingAnswers(state, sessionId)],
      });
    }),
    http.post(url(oracleContract.send.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const g = await guard<SendMessageBody | undefined>(state, request, `/messages/${sessionId}`);
      if (g.refused) return g.refused;
      const body = g.body;
      if (typeof body?.message !== 'string' || body.message === '')
        return errorBody(400, 'bad_request', 'message is required.');
      if (!state.history.has(sessionId)) return notFound();
      if (state.delegationState !== 'stored')
        return errorBody(
          401,
          state.delegationState === 'missing' ? 'delegation_missing' : 'delegation_expired',
          'Post a delegation to /delegation.',
        );
      if (state.paymentRequired)
        return errorBody(402, 'payment_required', 'Your credits do not cover this turn.', {
          outstandingClaims: state.paymentRequired,
          paymentMemo: state.credits.paymentMemo,
        });
      // One stream per session: a new message ends the previous turn.
      const previous = latestRun(state, sessionId);
      if (previous && !previous.ended) previous.abortRequested = true;
      const run = new MockRun(nextId('run'), nextId('req'), sessionId);
      state.runs.set(run.runId, run);
      const steps = typeof state.script === 'function' ? state.script({ sessionId, body }) : state.script;
      const response = eventStream(run, 0, request.signal);
      void executeScript(state, run, steps, body.message);
      return response;
    }),
    http.get(url(oracleContract.rejoinRun.path), async ({ request, params }) => {
      const runId = String(params['runId']);
      const g = await guard(state, request, `/runs/${runId}`);
      if (g.refused) return g.refused;
      const run = state.runs.get(runId);
      if (!run) return errorBody(404, 'run_not_found', 'Run not found.');
      const q = new URL(request.url).searchParams;
      const after = Number(q.get('after') ?? request.headers.get('last-event-id') ?? 0);
      return eventStream(run, Number.isFinite(after) ? after : 0, request.signal);
    }),
  ];
}
