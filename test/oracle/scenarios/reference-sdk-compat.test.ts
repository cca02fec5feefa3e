import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newUser, type Json, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';

/**
 * A client that behaves as the published reference SDK 1.4.0 does (../shared/facts/oracle-wire-protocol.md
 * §2 and §11), written from those facts: its request helper, its SSE parser with its limits, its history
 * fallback, its re-join and its abort order. The service must work with it unchanged.
 */

class RequestError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly outstandingClaims: string[] | undefined,
  ) {
    super(message);
  }
}

/** §2.1 request(): JSON content type even on GET; errors carry the body's statusCode; every success is JSON. */
async function request(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Json> {
  const response = await fetch(url, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) {
    const error = (await response.json()) as {
      statusCode?: number;
      message?: string;
      outstandingClaims?: string[];
    };
    throw new RequestError(error.message ?? 'request failed', error.statusCode, error.outstandingClaims);
  }
  return response.json(); // a 204 or an empty body throws here, as in the SDK
}

const KNOWN = new Set([
  'message',
  'tool_call',
  'action_call',
  'error',
  'done',
  'run',
  'router.update',
  'render_component',
  'browser_tool_call',
  'message_cache_invalidation',
  'reasoning',
]);

/** §11 parseSSEStream: lines split on \n and trimmed; no event: line → dropped; last data: kept; numeric ids only. */
function parseSSE(buffer: string): { events: { id?: number; event: string; data: Json }[]; rest: string } {
  const events: { id?: number; event: string; data: Json }[] = [];
  const blocks = buffer.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event: string | undefined;
    let data: string | undefined;
    let id: number | undefined;
    for (const raw of block.split('\n')) {
      const line = raw.trim();
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data = line.slice(5).trim();
      else if (line.startsWith('id:')) {
        const n = Number(line.slice(3).trim());
        if (Number.isFinite(n)) id = n;
      }
    }
    if (!event || !KNOWN.has(event) || data === undefined) continue;
    events.push({ ...(id === undefined ? {} : { id }), event, data: JSON.parse(data) });
  }
  return { events, rest };
}

/** A chat of the reference SDK, reduced to its wire behaviour. */
class ReferenceChat {
  text = '';
  lastEventId = 0;
  runId: string | undefined;
  ended: string | null = null;
  private controller: AbortController | undefined;

  constructor(
    private readonly base: string,
    private readonly sessionId: string,
    private readonly headers: Record<string, string>,
  ) {}

  apply(event: { id?: number; event: string; data: Json }): void {
    if (event.id !== undefined) this.lastEventId = event.id;
    if (event.event === 'run') {
      this.runId = event.data.runId;
      if (event.data.resumed) this.text = this.text.slice(0, event.data.partialLength as number);
    }
    if (event.event === 'message') this.text += event.data.content as string;
    if (event.event === 'done') {
      this.ended = event.data.status === 'finished' ? 'done' : (event.data.status as string);
      if (event.data.status !== 'finished') this.text = event.data.partialText as string;
    }
  }

  private async consume(response: Response, stopAfter?: number): Promise<'done' | 'dropped'> {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let seen = 0;
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) return this.ended ? 'done' : 'dropped';
      buffer += decoder.decode(chunk.value, { stream: true });
      const parsed = parseSSE(buffer);
      buffer = parsed.rest;
      for (const e of parsed.events) {
        this.apply(e);
        if (stopAfter !== undefined && ++seen >= stopAfter) {
          await reader.cancel();
          return 'dropped';
        }
      }
    }
  }

  async send(
    message: string,
    options: { dropAfter?: number; onEvent?: () => void } = {},
  ): Promise<'done' | 'dropped'> {
    this.controller = new AbortController();
    const response = await fetch(`${this.base}/messages/${this.sessionId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...this.headers },
      body: JSON.stringify({ message, stream: true, timezone: 'Africa/Nairobi' }),
      signal: this.controller.signal,
    });
    if (!response.ok) {
      const error = (await response.json()) as { statusCode: number; message: string };
      throw new RequestError(error.message, error.statusCode, undefined);
    }
    if (!response.headers.get('X-Request-Id')) throw new Error('Did not receive a request ID');
    this.runId = response.headers.get('X-Run-Id') ?? undefined;
    return this.consume(response, options.dropAfter).catch(() => 'dropped' as const);
  }

  /** §11: re-join with ?after=<last numeric id>, a few times; 404 ends the re-join. */
  async rejoin(): Promise<'done' | 'gone'> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await fetch(`${this.base}/runs/${this.runId}?after=${this.lastEventId}`, {
        headers: { 'Content-Type': 'application/json', ...this.headers },
      });
      if (response.status === 404) return 'gone';
      if ((await this.consume(response)) === 'done') return 'done';
    }
    return 'gone';
  }

  /** §11 abort order: await the POST, then drop the local fetch. */
  async abortStream(): Promise<void> {
    await request(`${this.base}/messages/abort`, 'POST', this.headers, { sessionId: this.sessionId });
    this.controller?.abort();
  }
}

let app: OracleApp;
let user: OracleUser;
/** The reference SDK 1.1 sends only the delegation; 1.4 adds the invocation when createInvocation is given. */
let delegationOnly: Record<string, string>;

beforeAll(async () => {
  app = await startOracleApp({ env: { SCRIPTED_MODEL_DELAY_MS: '3' } });
  user = await newUser(app.oracleDid);
  delegationOnly = { 'x-ucan-delegation': user.delegation.serialized };
});
afterAll(() => app.close());

describe('the published reference SDK (1.4.0 protocol) against this service', () => {
  it('creates a session without a body, streams a turn and reads the paged history', async () => {
    const session = await request(`${app.url}/sessions`, 'POST', delegationOnly);
    expect(session.sessionId).toEqual(expect.any(String));
    const chat = new ReferenceChat(app.url, session.sessionId, delegationOnly);
    expect(await chat.send('hello')).toBe('done');
    expect(chat.ended).toBe('done');
    expect(chat.lastEventId).toBeGreaterThan(1);
    const page = await request(
      `${app.url}/sessions/${session.sessionId}/messages?limit=20`,
      'GET',
      delegationOnly,
    );
    expect(page).toMatchObject({ prevCursor: null, nextCursor: null, hasOlder: false, hasNewer: false });
    expect(page.messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai']);
    expect(page.messages[1].content).toBe(chat.text);
  });

  // The two long answers run side by side (sessions of their own).
  it.concurrent(
    're-joins a dropped stream with ?after=<last numeric id> and ends with the whole answer',
    async () => {
      const session = await request(`${app.url}/sessions`, 'POST', user.headers);
      const chat = new ReferenceChat(app.url, session.sessionId, user.headers);
      expect(await chat.send('write a long story', { dropAfter: 20 })).toBe('dropped');
      expect(await chat.rejoin()).toBe('done');
      const history = await request(`${app.url}/messages/${session.sessionId}`, 'GET', user.headers);
      expect(chat.text).toBe(history.messages[1].content);
    },
  );

  it.concurrent('picks up a run on mount (page reload) through GET /sessions/:id/run', async () => {
    const session = await request(`${app.url}/sessions`, 'POST', user.headers);
    const tab = new ReferenceChat(app.url, session.sessionId, user.headers);
    await tab.send('write a long story', { dropAfter: 5 });
    const reloaded = new ReferenceChat(app.url, session.sessionId, user.headers);
    const { run } = await request(`${app.url}/sessions/${session.sessionId}/run`, 'GET', user.headers);
    expect(['queued', 'running', 'recovering']).toContain(run.status);
    reloaded.runId = run.runId;
    expect(await reloaded.rejoin()).toBe('done');
    const history = await request(`${app.url}/messages/${session.sessionId}`, 'GET', user.headers);
    expect(reloaded.text).toBe(history.messages[1].content);
  });

  it('aborts in its order (await the POST, then drop the fetch) and keeps the partial answer', async () => {
    const session = await request(`${app.url}/sessions`, 'POST', user.headers);
    const chat = new ReferenceChat(app.url, session.sessionId, user.headers);
    const sending = chat.send('write a long story');
    // Abort once some of the answer has streamed (a fixed delay raced the first word on a loaded machine).
    await vi.waitFor(() => expect(chat.text.length).toBeGreaterThan(0), { timeout: 10_000, interval: 10 });
    await expect(chat.abortStream()).resolves.toBeUndefined();
    await sending;
    const history = await request(`${app.url}/messages/${session.sessionId}`, 'GET', user.headers);
    expect(history.messages[1]).toMatchObject({ runStatus: 'aborted' });
    expect(history.messages[1].content.length).toBeGreaterThan(0);
  });

  it("reads error statuses from the body's statusCode (its history fallback depends on it)", async () => {
    const error = await request(`${app.url}/sessions/nope/messages?limit=20`, 'GET', user.headers).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).status).toBe(404);
    const unauthenticated = await request(`${app.url}/sessions`, 'GET', {}).catch((e: unknown) => e);
    expect((unauthenticated as RequestError).status).toBe(401);
  });

  it('gets JSON for every success it parses (abort, delete, delegation)', async () => {
    const session = await request(`${app.url}/sessions`, 'POST', user.headers);
    await expect(
      request(`${app.url}/messages/abort`, 'POST', user.headers, { sessionId: session.sessionId }),
    ).resolves.toEqual({
      success: false,
    });
    await expect(
      request(`${app.url}/delegation`, 'POST', user.headers, user.delegation),
    ).resolves.toMatchObject({
      issuer: user.did,
    });
    await expect(
      request(`${app.url}/sessions/${session.sessionId}`, 'DELETE', user.headers),
    ).resolves.toEqual({
      message: expect.any(String),
    });
  });
});
