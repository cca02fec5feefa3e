import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatSession, TranscriptPage } from '../../../contracts/oracle.js';
import { OracleError } from '../../../contracts/errors.js';
import { mintToken } from '../../../server/oracle/auth/mint.js';
import { newUser, oracleApi, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';

let app: OracleApp;
let alice: OracleUser;
let bob: OracleUser;
let api: ReturnType<typeof oracleApi>;

beforeAll(async () => {
  app = await startOracleApp();
  alice = await newUser(app.oracleDid);
  bob = await newUser(app.oracleDid);
  api = oracleApi(app.url, alice);
});
afterAll(() => app.close());

describe('sessions', () => {
  it('creates (201, with or without a body), lists newest first with a total, pages with limit/offset', async () => {
    const carol = oracleApi(app.url, await newUser(app.oracleDid));
    // The reference SDK posts no body at all.
    const bare = await fetch(`${app.url}/sessions`, {
      method: 'POST',
      headers: (await newUser(app.oracleDid)).headers,
    });
    expect(bare.status).toBe(201);
    const created: ChatSession[] = [];
    for (let i = 0; i < 3; i++) created.push(await carol.createSession());
    for (const s of created) expect(ChatSession.parse(s)).toEqual(s);
    expect(created[0]).toMatchObject({
      oracleName: 'Guide oracle',
      oracleDid: app.oracleDid,
      oracleEntityDid: 'did:ixo:entity:oracle7d1e3c9a2b',
    });
    await carol.call('POST', `/messages/${created[0]!.sessionId}`, { message: 'bump' });
    const page1 = await carol.call('GET', '/sessions?limit=2&offset=0');
    expect(page1.body.total).toBe(3);
    expect(page1.body.sessions.map((s: ChatSession) => s.sessionId)).toEqual([
      created[0]!.sessionId,
      created[2]!.sessionId,
    ]);
    expect(page1.body.sessions[0].title).toBe('bump');
    const page2 = await carol.call('GET', '/sessions?limit=2&offset=2');
    expect(page2.body.sessions.map((s: ChatSession) => s.sessionId)).toEqual([created[1]!.sessionId]);
  });

  it('GET /sessions items always carry a string title: “New chat” before the first message (it was null), then the first user message trimmed (a given title wins)', async () => {
    const dora = oracleApi(app.url, await newUser(app.oracleDid));
    const plain = await dora.createSession();
    const named = (await dora.call('POST', '/sessions', { title: 'Garden plans' })).body as ChatSession;
    expect(plain.title).toBe('New chat');
    expect(named.title).toBe('Garden plans');
    const titles = async (): Promise<Record<string, string | null | undefined>> => {
      const page = (await dora.call('GET', '/sessions')).body as { sessions: ChatSession[] };
      return Object.fromEntries(page.sessions.map((s) => [s.sessionId, s.title]));
    };
    expect(await titles()).toEqual({ [plain.sessionId]: 'New chat', [named.sessionId]: 'Garden plans' });
    await dora.call('POST', `/messages/${plain.sessionId}`, { message: '  When do I plant maize?  ' });
    await dora.call('POST', `/messages/${plain.sessionId}`, { message: 'second question' });
    await dora.call('POST', `/messages/${named.sessionId}`, { message: 'not the title' });
    expect(await titles()).toEqual({
      [plain.sessionId]: 'When do I plant maize?',
      [named.sessionId]: 'Garden plans',
    });
    // Derived in the query: a session stored without a title still lists its first user message.
    await app.db.kysely
      .updateTable('oracle_sessions')
      .set({ title: null })
      .where('session_id', '=', plain.sessionId)
      .execute();
    expect((await titles())[plain.sessionId]).toBe('When do I plant maize?');
  });

  it("keeps each user's sessions their own: 404 on every route for another user's session", async () => {
    const session = await api.createSession();
    await api.call('POST', `/messages/${session.sessionId}`, { message: 'mine' });
    const other = oracleApi(app.url, bob);
    expect((await other.call('GET', '/sessions')).body.sessions).toEqual([]);
    const probes: [string, string, unknown?][] = [
      ['GET', `/messages/${session.sessionId}`],
      ['GET', `/sessions/${session.sessionId}/messages`],
      ['GET', `/sessions/${session.sessionId}/run`],
      ['POST', `/messages/${session.sessionId}`, { message: 'hijack' }],
      ['POST', '/messages/abort', { sessionId: session.sessionId }],
      ['DELETE', `/sessions/${session.sessionId}`],
    ];
    for (const [method, path, body] of probes) {
      const r = await other.call(method, path, body);
      expect({ method, path, status: r.status, code: r.body?.code }).toEqual({
        method,
        path,
        status: 404,
        code: 'session_not_found',
      });
      expect(OracleError.parse(r.body).statusCode).toBe(404);
    }
    expect((await api.call('GET', `/messages/${session.sessionId}`)).body.messages).toHaveLength(2);
  });

  it('deletes a session with its history: its routes answer 404 afterwards', async () => {
    const session = await api.createSession();
    await api.call('POST', `/messages/${session.sessionId}`, { message: 'to be deleted' });
    expect(await api.call('DELETE', `/sessions/${session.sessionId}`)).toMatchObject({
      status: 200,
      body: { message: expect.any(String) },
    });
    expect((await api.call('GET', `/messages/${session.sessionId}`)).status).toBe(404);
    expect((await api.call('GET', `/sessions/${session.sessionId}/messages`)).status).toBe(404);
    expect((await api.call('DELETE', `/sessions/${session.sessionId}`)).status).toBe(404);
  });

  it('answers bad input with 400 OracleError naming the field (never a 5xx)', async () => {
    const session = await api.createSession();
    const cases: [string, string, unknown][] = [
      ['GET', '/sessions?limit=0', undefined],
      ['GET', '/sessions?limit=abc', undefined],
      ['POST', `/messages/${session.sessionId}`, { message: '' }],
      [
        'POST',
        `/messages/${session.sessionId}`,
        { message: 'ok', tools: [{ name: 'bad name!', description: '', schema: {} }] },
      ],
      ['POST', `/messages/${session.sessionId}`, { message: 'ok', model: 'gpt-17' }],
      ['GET', `/sessions/${session.sessionId}/messages?before=notacursor`, undefined],
      ['GET', '/sessions/bad%20id/messages', undefined],
      ['POST', '/messages/abort', { session: 'x' }],
    ];
    for (const [method, path, body] of cases) {
      const r = await api.call(method, path, body);
      expect({ path, status: r.status }).toEqual({ path, status: 400 });
      expect(OracleError.safeParse(r.body).success).toBe(true);
    }
    const raw = await fetch(`${app.url}/messages/${session.sessionId}`, {
      method: 'POST',
      headers: { ...alice.headers, 'content-type': 'application/json' },
      body: '{"message": "unterminated',
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { code: string }).code).toBe('bad_request');
    // Over a size is 413, not 400: the message (ORACLE_MESSAGE_MAX_CHARS) and the body (ORACLE_BODY_MAX_BYTES).
    const long = await api.call('POST', `/messages/${session.sessionId}`, { message: 'x'.repeat(20_001) });
    expect(long.status).toBe(413);
    expect(long.body).toMatchObject({ code: 'payload_too_large', statusCode: 413 });
    const huge = await api.call('POST', `/messages/${session.sessionId}`, { message: 'x'.repeat(1_100_000) });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ code: 'payload_too_large', statusCode: 413 });
    expect((await api.call('GET', `/messages/${session.sessionId}`)).body.messages).toEqual([]);
  });
});

describe('paged history (GET /sessions/:id/messages)', () => {
  it('gives the newest page first, oldest first within it, and walks back and forth with opaque cursors', async () => {
    const session = await api.createSession();
    for (let i = 1; i <= 5; i++)
      await api.call('POST', `/messages/${session.sessionId}`, { message: `question ${i}` });
    const all = (await api.call('GET', `/messages/${session.sessionId}`)).body.messages as {
      id: string;
      content: string;
    }[];
    expect(all).toHaveLength(10);
    const newest = TranscriptPage.parse(
      (await api.call('GET', `/sessions/${session.sessionId}/messages?limit=4`)).body,
    );
    expect(newest.messages.map((m) => m.id)).toEqual(all.slice(6).map((m) => m.id));
    expect(newest).toMatchObject({ hasOlder: true, hasNewer: false, nextCursor: null });
    const older = TranscriptPage.parse(
      (await api.call('GET', `/sessions/${session.sessionId}/messages?limit=4&before=${newest.prevCursor}`))
        .body,
    );
    expect(older.messages.map((m) => m.id)).toEqual(all.slice(2, 6).map((m) => m.id));
    expect(older).toMatchObject({ hasOlder: true, hasNewer: true });
    const oldest = TranscriptPage.parse(
      (await api.call('GET', `/sessions/${session.sessionId}/messages?limit=4&before=${older.prevCursor}`))
        .body,
    );
    expect(oldest.messages.map((m) => m.id)).toEqual(all.slice(0, 2).map((m) => m.id));
    expect(oldest).toMatchObject({ hasOlder: false, prevCursor: null, hasNewer: true });
    const forward = TranscriptPage.parse(
      (await api.call('GET', `/sessions/${session.sessionId}/messages?limit=3&after=${oldest.nextCursor}`))
        .body,
    );
    expect(forward.messages.map((m) => m.id)).toEqual(all.slice(2, 5).map((m) => m.id));
    expect(forward).toMatchObject({ hasOlder: true, hasNewer: true });
  });
});

describe('POST /delegation and turns that need a stored delegation', () => {
  it('stores a delegation, answers its expiry, and lets invocation-only turns run', async () => {
    const dave = await newUser(app.oracleDid);
    const invocationOnly = { authorization: `Bearer ${dave.invocation.serialized}`, 'x-auth-type': 'ucan' };
    const daveApi = oracleApi(app.url, { ...dave, headers: invocationOnly });
    const session = await daveApi.createSession();
    const refused = await daveApi.call('POST', `/messages/${session.sessionId}`, { message: 'hi' });
    expect(refused).toMatchObject({ status: 401, body: { code: 'delegation_missing', statusCode: 401 } });
    const stored = await daveApi.call('POST', '/delegation', dave.delegation);
    expect(stored).toMatchObject({
      status: 200,
      body: { issuer: dave.did, audience: app.oracleDid, expiresAt: dave.delegation.expiresAt },
    });
    expect((await daveApi.call('POST', `/messages/${session.sessionId}`, { message: 'hi' })).status).toBe(
      200,
    );
  });

  it('answers delegation_expired when the stored one has expired, and refuses a delegation of someone else', async () => {
    const erin = await newUser(app.oracleDid);
    const shortLived = await mintToken({
      issuer: erin.signer,
      audience: app.oracleDid as `did:${string}:${string}`,
      ttlSeconds: 1,
      capabilities: [{ can: 'oracle/act', with: erin.did as `did:${string}:${string}` }],
    });
    const invocationOnly = { authorization: `Bearer ${erin.invocation.serialized}`, 'x-auth-type': 'ucan' };
    const erinApi = oracleApi(app.url, { ...erin, headers: invocationOnly });
    expect((await erinApi.call('POST', '/delegation', shortLived)).status).toBe(200);
    const session = await erinApi.createSession();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await erinApi.call('POST', `/messages/${session.sessionId}`, { message: 'hi' })).toMatchObject({
      status: 401,
      body: { code: 'delegation_expired' },
    });
    expect(await erinApi.call('POST', '/delegation', bob.delegation)).toMatchObject({
      status: 401,
      body: { code: 'auth_issuer_mismatch' },
    });
  });
});
