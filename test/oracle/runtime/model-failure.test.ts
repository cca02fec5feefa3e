import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatModel, ModelChunk } from '../../../server/oracle/models/model.js';
import { oraclePart } from '../../../server/oracle/part.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';
import { answerText } from '../../helpers/oracle/sse.js';
import { mapModels } from '../../helpers/oracle/test-plugin.js';

// A model that fails mid-answer: a turn ends `failed`, the words it wrote are kept, and a non-streamed
// request answers 503 (not 200 with half an answer, not 500).

/** Every configured model answers "Half an " then "answer" and then throws. */
const failingModels = mapModels((model): ChatModel => ({
  id: model.id,
  // eslint-disable-next-line @typescript-eslint/require-await
  async *stream(): AsyncIterable<ModelChunk> {
    yield { type: 'text', text: 'Half an ' };
    yield { type: 'text', text: 'answer' };
    throw new Error('the upstream model hung up (secret detail)');
  },
}));

let db: TestDb;
let app: OracleApp;

beforeAll(async () => {
  db = await openTestDb();
  app = await startOracleApp({ db, parts: { oracle: oraclePart({ models: failingModels }) } });
});
afterAll(async () => {
  await app.close();
  await db.close();
});

describe('a model that fails mid-answer', () => {
  it('a non-streamed message answers 503 unavailable with the spec text; the partial answer is kept as failed', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const session = await api.createSession();
    const r = await api.call('POST', `/messages/${session.sessionId}`, { message: 'hello' });
    expect(r.status).toBe(503);
    expect(r.body).toEqual({
      code: 'unavailable',
      message: 'The model failed to answer; try again.',
      statusCode: 503,
      requestId: r.headers.get('x-request-id'),
      retryAfter: 2,
    });
    expect(r.headers.get('retry-after')).toBe('2');
    expect(JSON.stringify(r.body)).not.toContain('secret detail');
    expect(r.headers.get('x-run-id')).toMatch(/.+/);
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages.at(-1)).toMatchObject({
      type: 'ai',
      content: 'Half an answer',
      runStatus: 'failed',
    });
  });

  it('a streamed message ends with error turn_failed, then done failed with the partial text', async () => {
    const api = oracleApi(app.url, await newUser(app.oracleDid));
    const session = await api.createSession();
    const { response, events } = await api.stream(session.sessionId, { message: 'hello' });
    expect(response.status).toBe(200);
    expect(answerText(events)).toBe('Half an answer');
    const [error, done] = events.slice(-2);
    expect(error).toMatchObject({
      event: 'error',
      data: { code: 'turn_failed', error: 'The model failed to answer; try again.' },
    });
    expect(done).toMatchObject({ event: 'done', data: { status: 'failed', partialText: 'Half an answer' } });
  });
});
