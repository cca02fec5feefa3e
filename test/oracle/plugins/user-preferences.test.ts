import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserPreferences } from '../../../contracts/preferences.js';
import type { ModelRequest } from '../../../server/oracle/models/model.js';
import { oraclePart } from '../../../server/oracle/part.js';
import { PreferencesStore, roomKey } from '../../../server/oracle/plugins/user-preferences/store.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { newUser, oracleApi, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { newOracleKey, startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';
import { standingPreferences } from '../../../server/oracle/models/scripted-preferences.js';
import { answerText, type SseEvent } from '../../helpers/oracle/sse.js';
import { recordingModels } from '../../helpers/oracle/test-plugin.js';

let db: TestDb;
let signingKey: string;
const requests: ModelRequest[] = [];
let app: OracleApp;

beforeAll(async () => {
  db = await openTestDb();
  signingKey = await newOracleKey();
  app = await startOracleApp({
    db,
    signingKey,
    parts: { oracle: oraclePart({ models: recordingModels(requests) }) },
  });
});
afterAll(async () => {
  await app.close();
  await db.close();
});

const toolCalls = (events: SseEvent[]) =>
  events.filter((e) => e.event === 'tool_call').map((e) => e.data as Record<string, unknown>);

async function user(): Promise<{ u: OracleUser; api: ReturnType<typeof oracleApi> }> {
  const u = await newUser(app.oracleDid);
  return { u, api: oracleApi(app.url, u) };
}

describe('the user-preferences plugin (spec part D)', () => {
  it('saves a standing request with set_user_preferences and the next session follows it from its first turn', async () => {
    const { api } = await user();
    const first = await api.createSession();
    const { events } = await api.stream(first.sessionId, {
      message: 'Please always reply tersely in Kiswahili and call yourself Juma',
    });
    const [start, end] = toolCalls(events);
    expect(start).toMatchObject({
      toolName: 'set_user_preferences',
      status: 'isRunning',
      args: { language: 'sw', agentName: 'Juma', tone: 'terse', length: 'short' },
    });
    const saved = UserPreferences.parse(JSON.parse(String(end?.['output'])));
    expect(saved).toEqual({
      language: 'sw',
      agentName: 'Juma',
      tone: 'terse',
      length: 'short',
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(answerText(events)).toBe('Sawa, nimehifadhi mapendeleo yako. Jina langu sasa ni Juma.');

    const read = await api.call('GET', '/user-preferences');
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toMatch(/^application\/json/);
    expect(read.body).toEqual(saved);

    const second = await api.createSession();
    const before = requests.length;
    const r = await api.call('POST', `/messages/${second.sessionId}`, { message: 'habari' });
    const system = requests[before]?.messages[0]?.content ?? '';
    expect(system.startsWith('You are <user-text>Juma</user-text>, an AI agent')).toBe(true);
    expect(system).toContain(
      '## User Preferences\nThe user set these preferences: follow them for how you answer (voice, length, format, language, your name).\n- Preferred agent name: <user-text>Juma</user-text>\n- Reply language: sw\n- Tone: <user-text>terse</user-text>\n- Answer length: short\nFollow these preferences in every answer.',
    );
    expect(r.body.message.content).toBe('Mimi ni Juma. Umesema: "habari".');
  });

  it("saves nothing for the user's name and role (rule 2)", async () => {
    const { api } = await user();
    const session = await api.createSession();
    const { events } = await api.stream(session.sessionId, {
      message: "I'm Amina, a nurse at the district hospital",
    });
    expect(toolCalls(events)).toEqual([]);
    expect((await api.call('GET', '/user-preferences')).body).toBeNull();
  });

  it('adapts one answer to a one-off format request and saves nothing (rule 3)', async () => {
    const { api } = await user();
    const session = await api.createSession();
    const { events } = await api.stream(session.sessionId, {
      message: 'Answer this one as bullet points: what is USSD?',
    });
    expect(toolCalls(events)).toEqual([]);
    expect(
      answerText(events)
        .split('\n')
        .every((line) => line.startsWith('- ')),
    ).toBe(true);
    expect((await api.call('GET', '/user-preferences')).body).toBeNull();
  });

  it('refuses bad tool arguments with a tool error and writes nothing', async () => {
    const { api } = await user();
    const session = await api.createSession();
    await api.stream(session.sessionId, { message: 'From now on call yourself Asha' });
    const { events } = await api.stream(session.sessionId, {
      message: 'use set_user_preferences with {"agentName": "Zed", "language": "not a tag!!"}',
    });
    expect(toolCalls(events)[1]).toMatchObject({
      status: 'error',
      error: expect.stringContaining('Invalid arguments for set_user_preferences: language:'),
    });
    expect((await api.call('GET', '/user-preferences')).body).toMatchObject({ agentName: 'Asha' });
  });

  it('keeps one record per room: another user never sees it; a shared room named by the request has its own', async () => {
    const { u, api } = await user();
    const session = await api.createSession();
    const { roomId } = (await api.call('POST', '/rooms', { name: 'Team' })).body as { roomId: string };
    await api.stream(session.sessionId, { message: 'Always answer in English with bullet points' });
    await api.stream(session.sessionId, {
      message: 'From now on call yourself Timu',
      metadata: { roomId },
    });
    expect((await api.call('GET', '/user-preferences')).body).toMatchObject({
      language: 'en',
      format: 'bullets',
    });
    expect((await api.call('GET', '/user-preferences')).body.agentName).toBeUndefined();
    const shared = await api.call('GET', `/user-preferences?roomId=${encodeURIComponent(roomId)}`);
    expect(shared.body).toMatchObject({ agentName: 'Timu' });
    // A shared room's change is audit-logged with the member who made it; the pair's own is not.
    const audit = await db.kysely
      .selectFrom('oracle_room_audit')
      .select(['room_id', 'actor_did', 'event', 'detail'])
      .where('event', '=', 'preferences_changed')
      .where('actor_did', '=', u.did)
      .execute();
    expect(audit).toEqual([
      {
        room_id: roomId,
        actor_did: u.did,
        event: 'preferences_changed',
        detail: { changes: { agentName: 'Timu' } },
      },
    ]);
    const { api: other } = await user();
    expect((await other.call('GET', '/user-preferences')).body).toBeNull();
    expect((await other.call('GET', '/user-preferences')).status).toBe(200);
    // Another user's shared room answers as an unknown one does.
    const foreign = await other.call('GET', `/user-preferences?roomId=${encodeURIComponent(roomId)}`);
    const unknown = await other.call('GET', '/user-preferences?roomId=room_unknown');
    expect(foreign.status).toBe(404);
    expect({ ...foreign.body, requestId: undefined }).toEqual({ ...unknown.body, requestId: undefined });
  });

  it('is authenticated like every oracle route', async () => {
    const r = await fetch(`${app.url}/user-preferences`);
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ code: 'auth_missing', statusCode: 401 });
  });

  it('loses no field to concurrent updates; null clears a field', async () => {
    const store = new PreferencesStore(db, app.oracleDid);
    const room = roomKey('did:key:z6MkConcurrent', undefined);
    const updates = [
      { tone: 'warm' },
      { length: 'long' as const },
      { format: 'markdown' as const },
      { language: 'fr' },
      { agentName: 'Kito' },
      { formality: 'casual' as const },
      { customInstructions: 'No emojis.' },
    ];
    await Promise.all(updates.map((u) => store.update(room, u)));
    const merged = await store.get(room);
    expect(merged).toMatchObject(Object.assign({}, ...updates) as Record<string, unknown>);
    const cleared = await store.update(room, { tone: null, agentName: null });
    expect(cleared.tone).toBeUndefined();
    expect(cleared.agentName).toBeUndefined();
    expect(cleared.language).toBe('fr');
  });

  it('adds customInstructions to the earlier ones and replaces every other field; null removes the stored key', async () => {
    const store = new PreferencesStore(db, app.oracleDid);
    const room = roomKey('did:key:z6MkMerging', undefined);
    await store.update(room, { tone: 'calm', length: 'short', customInstructions: 'No emojis.' });
    const second = await store.update(room, { tone: 'terse', customInstructions: 'Be brief' });
    expect(second).toMatchObject({
      tone: 'terse',
      length: 'short',
      customInstructions: 'No emojis.\nBe brief',
    });
    await store.update(room, { length: null });
    const row = await db.kysely
      .selectFrom('user_preferences')
      .select('preferences')
      .where('oracle_did', '=', app.oracleDid)
      .where('room_key', '=', room)
      .executeTakeFirstOrThrow();
    expect(row.preferences).toEqual({ tone: 'terse', customInstructions: 'No emojis.\nBe brief' });
  });

  it('reads a stored record without the fields that no longer validate', async () => {
    const store = new PreferencesStore(db, app.oracleDid);
    const room = roomKey('did:key:z6MkStale', undefined);
    await db.kysely
      .insertInto('user_preferences')
      .values({
        oracle_did: app.oracleDid,
        room_key: room,
        // A stored updatedAt, even a valid one, never replaces the row's own time.
        preferences: JSON.stringify({
          tone: 'kind',
          length: 'huge',
          updatedAt: '2000-01-01T00:00:00.000Z',
          shoeSize: 44,
        }),
      })
      .execute();
    const record = await store.get(room);
    expect(Object.keys(record ?? {}).sort()).toEqual(['tone', 'updatedAt']);
    expect(record?.tone).toBe('kind');
    expect(record?.updatedAt).not.toBe('2000-01-01T00:00:00.000Z');
  });
});

describe('switched off (ORACLE_FEATURES=-user-preferences)', () => {
  it('has no tool, no route (404) and no prompt section, though the records stay in the database', async () => {
    const { u, api } = await user();
    const session = await api.createSession();
    await api.stream(session.sessionId, { message: 'Always reply in Kiswahili' });
    expect((await api.call('GET', '/user-preferences')).body).toMatchObject({ language: 'sw' });

    const offRequests: ModelRequest[] = [];
    await using off = await startOracleApp({
      db,
      signingKey,
      env: { ORACLE_FEATURES: '-user-preferences' },
      parts: { oracle: oraclePart({ models: recordingModels(offRequests) }) },
    });
    const offApi = oracleApi(off.url, u);
    expect((await offApi.call('GET', '/user-preferences')).status).toBe(404);
    const r = await offApi.call('POST', `/messages/${session.sessionId}`, {
      message: 'Always reply in Kiswahili',
    });
    expect(r.status).toBe(200);
    expect(offRequests[0]?.tools.map((t) => t.name)).not.toContain('set_user_preferences');
    expect(offRequests[0]?.messages[0]?.content).not.toContain('User Preferences');
    const health = (await (await fetch(`${off.url}/health`)).json()) as { plugins: unknown[] };
    expect(health.plugins).toContainEqual({
      name: 'user-preferences',
      state: 'disabled',
      reason: 'switched off by features',
    });
  });
});

describe('the phrasings docs/agent-api.md promises for the scripted model', () => {
  it.each([
    [
      'Please always reply tersely in Kiswahili and call yourself Juma',
      { language: 'sw', agentName: 'Juma', tone: 'terse', length: 'short' },
    ],
    [
      'From now on answer formally in English, no emojis',
      { language: 'en', formality: 'formal', customInstructions: 'No emojis.' },
    ],
    ['Always use bullet points', { format: 'bullets' }],
    ["I'm Amina, a nurse at the district hospital", undefined],
    ['Answer this one as bullet points: what is USSD?', undefined],
  ])('%s', (message, expected) => {
    expect(standingPreferences(message)).toEqual(expected);
  });
});
