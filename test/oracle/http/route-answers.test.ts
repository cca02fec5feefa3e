// The oracle routes' exact answers where no other test pins them: /config as the SDK reads it (its addresses
// from PUBLIC_BASE_URL, else the request's own origin), deleting a session, a session with no run yet (204),
// a run that is not there (run_not_found), an unknown model (refused before anything is written), and a
// Last-Event-ID that is not a whole number of at most 16 digits (ignored: the replay starts at the beginning).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, oracleApi, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';
import { readSse } from '../../helpers/oracle/sse.js';

describe('oracle route answers', () => {
  let app: OracleApp;
  let user: OracleUser;
  beforeAll(async () => {
    app = await startOracleApp({ env: { ORACLE_NAME: 'Route oracle' } });
    user = await newUser(app.oracleDid);
  });
  afterAll(() => app.close());

  it('GET /config: the DID, name, default model and price, and the addresses of the request’s own origin', async () => {
    const response = await fetch(`${app.url}/config`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      did: app.oracleDid,
      entityDid: expect.stringMatching(/^did:ixo:entity:/) as unknown,
      name: 'Route oracle',
      model: 'scripted',
      price: { amount: 0, denom: 'credits', per: 'turn' },
      apiUrl: app.url,
      wsUrl: app.url,
    });
  });

  it('DELETE a session: its answer, then the same 404 as a session that never was, for its owner and anyone else', async () => {
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    const other = oracleApi(app.url, await newUser(app.oracleDid));
    const notFound = {
      status: 404,
      body: { code: 'session_not_found', message: 'Chat session not found.', statusCode: 404 },
    };
    expect(await other.call('DELETE', `/sessions/${session.sessionId}`)).toMatchObject(notFound);
    expect(await api.call('DELETE', `/sessions/${session.sessionId}`)).toMatchObject({
      status: 200,
      body: { message: 'Session deleted.' },
    });
    expect(await api.call('DELETE', `/sessions/${session.sessionId}`)).toMatchObject(notFound);
    expect(await api.call('GET', `/messages/${session.sessionId}`)).toMatchObject(notFound);
  });

  it('GET /sessions/:id/run with no run yet answers 204 with no body (every chat mount asked and logged a red 404)', async () => {
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    const answer = await api.call('GET', `/sessions/${session.sessionId}/run`);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 204, body: undefined });
    // Not the caller's, or not there: the session's 404, as before.
    const sessionNotFound = {
      status: 404,
      body: { code: 'session_not_found', message: 'Chat session not found.', statusCode: 404 },
    };
    const other = oracleApi(app.url, await newUser(app.oracleDid));
    expect(await other.call('GET', `/sessions/${session.sessionId}/run`)).toMatchObject(sessionNotFound);
    expect(await api.call('GET', '/sessions/00000000-0000-4000-8000-000000000000/run')).toMatchObject(
      sessionNotFound,
    );
    // Once a turn ran, its run.
    await api.call('POST', `/messages/${session.sessionId}`, { message: 'hello' });
    expect(await api.call('GET', `/sessions/${session.sessionId}/run`)).toMatchObject({
      status: 200,
      body: { run: { sessionId: session.sessionId, status: 'finished' } },
    });
  });

  it('a run that is not there or not yours: 404 run_not_found (its own code, not session_not_found)', async () => {
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    const runNotFound = {
      status: 404,
      body: { code: 'run_not_found', message: 'Run not found.', statusCode: 404 },
    };
    expect(await api.call('GET', '/runs/run_never')).toMatchObject(runNotFound);
    const turn = await api.call('POST', `/messages/${session.sessionId}`, { message: 'hello' });
    const runId = turn.headers.get('x-run-id') as string;
    const other = oracleApi(app.url, await newUser(app.oracleDid));
    expect(await other.call('GET', `/runs/${runId}`)).toMatchObject(runNotFound);
  });

  it('an unknown model: 400 unknown_model naming it, and nothing written', async () => {
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    expect(
      await api.call('POST', `/messages/${session.sessionId}`, { message: 'hello', model: 'nope' }),
    ).toMatchObject({
      status: 400,
      body: { code: 'unknown_model', message: 'Unknown model nope; see GET /models.', statusCode: 400 },
    });
    expect((await api.call('GET', `/messages/${session.sessionId}`)).body.messages).toEqual([]);
    expect((await api.call('GET', `/sessions/${session.sessionId}/run`)).status).toBe(204);
  });

  it('metadata.roomId empty: no room is named, the turn goes on', async () => {
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    const turn = await api.call('POST', `/messages/${session.sessionId}`, {
      message: 'hello',
      metadata: { roomId: '' },
    });
    expect(turn.status).toBe(200);
  });

  it('Last-Event-ID: a whole number of at most 16 digits resumes after it; anything else replays from the start', async () => {
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    const turn = await api.call('POST', `/messages/${session.sessionId}`, { message: 'hello' });
    const runId = turn.headers.get('x-run-id') as string;
    const all = (await api.rejoin(runId, 0)).events.map((e) => e.id);
    expect(all.length).toBeGreaterThan(2);
    // No `?after=`: the header decides.
    const after = async (value: string) => {
      const response = await fetch(`${app.url}/runs/${runId}`, {
        headers: { ...user.headers, 'last-event-id': value },
      });
      // The re-join names its run and its turn's request, like the turn's own answer.
      expect(response.headers.get('x-run-id')).toBe(runId);
      expect(response.headers.get('x-request-id')).toBe(turn.body.message.id);
      return (await readSse(response.body as ReadableStream<Uint8Array>)).events.map((e) => e.id);
    };
    expect(await after('2')).toEqual(all.filter((id) => (id as number) > 2));
    expect(await after('02')).toEqual(all.filter((id) => (id as number) > 2));
    expect(await after('12345678901234567')).toEqual(all);
    expect(await after('2.5')).toEqual(all);
    expect(await after('-1')).toEqual(all);
  });
});

describe('/config behind a public address', () => {
  it('apiUrl and wsUrl are PUBLIC_BASE_URL without its trailing slashes', async () => {
    await using app = await startOracleApp({ env: { PUBLIC_BASE_URL: 'https://oracle.example.org//' } });
    const body = (await (await fetch(`${app.url}/config`)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ apiUrl: 'https://oracle.example.org', wsUrl: 'https://oracle.example.org' });
  });
});
