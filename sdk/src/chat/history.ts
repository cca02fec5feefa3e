import type { MessageDto } from '../../../contracts/oracle.js';
import { oracleRoutes as oracleContract } from '../http/routes.js';
import type { OracleHttp } from '../http/oracle-http.js';
import { OracleRequestError } from '../http/oracle-request-error.js';
import type { IMessage } from '../types.js';
import type { ChatStore } from './chat-store.js';
import { fromDto } from './content.js';

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

/** The turn being read, as the merge sees it: its optimistic user message and its answer. */
export interface LiveTurn {
  /** The optimistic user message's local id (until history has the stored one). */
  humanId: string | undefined;
  /** The answer's id (the turn's request id), once the stream named it. */
  requestId: string | undefined;
}

/** A thread after a refetch of its newest page. */
export interface MergedThread {
  messages: IMessage[];
  /**
   * Older pages loaded before (with `loadOlderMessages`) were kept, because the newest page still joins
   * them: their cursor and `hasOlderMessages` stay as they were. Otherwise the newest page's own apply.
   */
  keptOlder: boolean;
}

/**
 * Merges the newest page of history into the thread on screen, a pure function (no store, no network):
 * 1. Older pages: the messages of `thread` before the page's first message are kept when that message is in
 *    `thread` past its start (the page joins them), except ids the page has; else the thread starts at the
 *    page.
 * 2. The page's messages follow, as history has them (a refetch never duplicates a message).
 * 3. The turn in flight (`live`) keeps what history does not hold yet: its answer, and its optimistic user
 *    message unless the page ends with a question of the same text (the oracle stores the question under an
 *    id of its own as the turn starts, the answer at its end).
 */
export function mergeHistory(
  thread: readonly IMessage[],
  page: readonly IMessage[],
  live: LiveTurn | undefined,
): MergedThread {
  const ids = new Set(page.map((m) => m.id));
  const first = page[0];
  const joinsAt = first === undefined ? -1 : thread.findIndex((m) => m.id === first.id);
  const older = joinsAt > 0 ? thread.slice(0, joinsAt).filter((m) => !ids.has(m.id)) : [];
  const optimistic = live?.humanId === undefined ? undefined : thread.find((m) => m.id === live.humanId);
  const newest = page.at(-1);
  const stored =
    optimistic !== undefined && newest?.type === 'human' && newest.content === optimistic.content;
  const kept = live
    ? thread.filter((m) => !ids.has(m.id) && ((m.id === live.humanId && !stored) || m.id === live.requestId))
    : [];
  return { messages: [...older, ...page, ...kept], keptOlder: older.length > 0 };
}

/**
 * The history of one chat in its store: the newest page merged into the thread on screen ({@link mergeHistory}),
 * older pages loaded on demand from the cursor the pages give.
 */
export class ChatHistory {
  readonly #store: ChatStore;
  readonly #sessionId: string;
  #prevCursor: string | null = null;
  #loaded = false;

  constructor(store: ChatStore, sessionId: string) {
    this.#store = store;
    this.#sessionId = sessionId;
  }

  /**
   * Loads the newest page of history; falls back to the whole legacy history. The pages loaded before it with
   * `loadOlder` are kept when the newest page still joins them (its first message is one of theirs), and with
   * them the cursor to load older ones still; else the thread is the newest page. Writes nothing once the
   * page is `stale()` (a newer attach owns the store); merges with the turn `live()` then; a failure is thrown.
   */
  async refresh(
    http: OracleHttp,
    limit: number,
    stale: () => boolean,
    live: () => LiveTurn | undefined,
  ): Promise<void> {
    const store = this.#store;
    if (!this.#loaded) store.setMeta({ isLoading: true });
    const page = await fetchNewestPage(http, this.#sessionId, limit);
    if (stale()) return;
    const turn = live();
    const merged = mergeHistory(
      store.getMessages(),
      page.messages.map((m) => fromDto(m, this.#sessionId)),
      turn,
    );
    if (!merged.keptOlder) this.#prevCursor = page.prevCursor;
    store.replaceAll(merged.messages);
    this.#loaded = true;
    const recovered = store.getMeta().status === 'error' && !turn ? { status: 'ready' as const } : {};
    store.setMeta({
      isLoading: false,
      error: undefined,
      ...(merged.keptOlder ? {} : { hasOlderMessages: page.hasOlder }),
      ...recovered,
    });
  }

  /** Loads the page before the oldest loaded message, when there is one; a failure is thrown. */
  async loadOlder(http: OracleHttp, limit: number): Promise<void> {
    if (!this.#prevCursor) return;
    const page = await fetchOlderPage(http, this.#sessionId, this.#prevCursor, limit);
    this.#prevCursor = page.prevCursor;
    this.#store.prepend(page.messages.map((m) => fromDto(m, this.#sessionId)));
    this.#store.setMeta({ hasOlderMessages: page.hasOlder });
    this.#store.flush();
  }
}
