import type { MessageDto } from '../../../contracts/oracle.js';
import { oracleRoutes as oracleContract } from '../http/routes.js';
import type { OracleHttp } from '../http/oracle-http.js';
import { OracleRequestError } from '../http/oracle-request-error.js';

/** A page of history, oldest first, and how to page further back. */
export interface HistoryPage {
  messages: MessageDto[];
  prevCursor: string | null;
  hasOlder: boolean;
}

/**
 * The newest page of a thread (`GET /sessions/:id/messages?limit=`). Older services have only the whole
 * history: when the paged route answers 405, or 404 other than `session_not_found`, it falls back to
 * `GET /messages/:id` (as reference SDK 1.4.0 does).
 */
export async function fetchNewestPage(
  http: OracleHttp,
  sessionId: string,
  limit: number,
  signal?: AbortSignal,
): Promise<HistoryPage> {
  const params = { sessionId };
  try {
    return await http.call(oracleContract.transcript, { params, query: { limit }, signal });
  } catch (e) {
    const routeMissing =
      e instanceof OracleRequestError &&
      (e.status === 405 || (e.status === 404 && e.code !== 'session_not_found'));
    if (!routeMissing) throw e;
    const all = await http.call(oracleContract.history, { params, signal });
    return { messages: all.messages, prevCursor: null, hasOlder: false };
  }
}

/** The page before `cursor` (older messages). */
export async function fetchOlderPage(
  http: OracleHttp,
  sessionId: string,
  cursor: string,
  limit: number,
): Promise<HistoryPage> {
  const page = await http.call(oracleContract.transcript, {
    params: { sessionId },
    query: { limit, before: cursor },
  });
  return { messages: page.messages, prevCursor: page.prevCursor, hasOlder: page.hasOlder };
}
