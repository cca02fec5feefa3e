import { http, HttpResponse, type HttpHandler } from 'msw';
import {
  NEW_CHAT_TITLE,
  oracleContract,
  type ChatSession,
  type ModelInfo,
  type OracleConfig,
  type SessionPage,
} from '../../../../contracts/oracle.js';
import { errorBody, guard, nextId, now, routeUrl, type MockState } from '../mock-state.js';

/** The public routes (`/config`, `/models`) and the session routes. */
export function sessionHandlers(state: MockState): HttpHandler[] {
  const url = (path: string) => routeUrl(state, path);
  return [
    http.get(url(oracleContract.config.path), () => HttpResponse.json<OracleConfig>(state.config)),
    http.get(url(oracleContract.models.path), () =>
      HttpResponse.json<{ models: ModelInfo[]; default: string }>({
        models: state.models,
        default: state.models.find((m) => m.isDefault)?.id ?? state.models[0]?.id ?? 'scripted',
      }),
    ),
    http.post(url(oracleContract.createSession.path), async ({ request }) => {
      const g = await guard<{ title?: string } | undefined>(state, request, '/sessions');
      if (g.refused) return g.refused;
      const title = g.body?.title;
      const session: ChatSession = {
        sessionId: nextId('ses'),
        createdAt: now(),
        lastUpdatedAt: now(),
        oracleName: state.config.name,
        oracleDid: state.config.did,
        oracleEntityDid: state.oracleDid,
        title: title ?? NEW_CHAT_TITLE,
      };
      state.sessions.unshift(session);
      state.history.set(session.sessionId, []);
      return HttpResponse.json<ChatSession>(session, { status: 201 });
    }),
    http.get(url(oracleContract.listSessions.path), async ({ request }) => {
      const g = await guard(state, request, '/sessions');
      if (g.refused) return g.refused;
      const q = new URL(request.url).searchParams;
      const limit = Number(q.get('limit') ?? 20);
      const offset = Number(q.get('offset') ?? 0);
      return HttpResponse.json<SessionPage>({
        // A session seeded without a title lists as the oracle lists one: "New chat".
        sessions: state.sessions
          .slice(offset, offset + limit)
          .map((s) => ({ ...s, title: s.title || NEW_CHAT_TITLE })),
        total: state.sessions.length,
      });
    }),
    http.delete(url(oracleContract.deleteSession.path), async ({ request, params }) => {
      const sessionId = String(params['sessionId']);
      const g = await guard(state, request, `/sessions/${sessionId}`);
      if (g.refused) return g.refused;
      const i = state.sessions.findIndex((s) => s.sessionId === sessionId);
      if (i === -1) return errorBody(404, 'session_not_found', 'Session not found.');
      state.sessions.splice(i, 1);
      state.history.delete(sessionId);
      return HttpResponse.json<{ message: string }>({ message: 'Session deleted' });
    }),
  ];
}
