import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelInfo } from '../../../contracts/oracle.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';
import { answerText } from '../../helpers/oracle/sse.js';
import { startFakeOpenAi } from '../../helpers/oracle/fake-openai.js';

describe('GET /models on embedded defaults', () => {
  it('lists the scripted model as the default', async () => {
    await using app = await startOracleApp();
    const r = await fetch(`${app.url}/models`);
    const body = (await r.json()) as { models: unknown[]; default: string };
    expect(body.default).toBe('scripted');
    expect(body.models.map((m) => ModelInfo.parse(m))).toEqual([
      expect.objectContaining({ id: 'scripted', isDefault: true, tier: 'everyday', vision: false }),
    ]);
  });
});

describe('an OpenAI-compatible model (a local server speaking the protocol)', () => {
  let fake: Awaited<ReturnType<typeof startFakeOpenAi>>;
  let app: OracleApp;
  beforeAll(async () => {
    fake = await startFakeOpenAi((_body, i) =>
      i === 0
        ? { reasoning: ['Let me ', 'think.'], text: ['Hello', ' from', ' the', ' model.'] }
        : { text: ['Second', ' answer.'] },
    );
    app = await startOracleApp({
      env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-secret', OPENAI_MODEL: 'local-model' },
    });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('is listed next to the scripted model and becomes the default', async () => {
    const body = (await (await fetch(`${app.url}/models`)).json()) as {
      models: { id: string; isDefault: boolean }[];
      default: string;
    };
    expect(body.default).toBe('local-model');
    expect(body.models.map((m) => [m.id, m.isDefault])).toEqual([
      ['scripted', false],
      ['local-model', true],
    ]);
    const config = (await (await fetch(`${app.url}/config`)).json()) as { model: string };
    expect(config.model).toBe('local-model');
  });

  it('streams its text and reasoning; the model is sent the prompt and the thread, never a token', async () => {
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    const { events } = await api.stream(session.sessionId, {
      message: 'Hi there',
      tools: [
        {
          name: 'read_page',
          description: 'Reads the page title',
          schema: { type: 'object', properties: {} },
        },
      ],
      mcpInvocations: { some_tool: user.invocation.serialized },
    });
    expect(answerText(events)).toBe('Hello from the model.');
    expect(
      events
        .filter((e) => e.event === 'reasoning')
        .map((e) => (e.data as { reasoning: string }).reasoning)
        .join(''),
    ).toBe('Let me think.');
    const sent = fake.requests[0]!;
    expect(sent.headers['authorization']).toBe('Bearer sk-test-secret');
    expect(sent.body).toMatchObject({ model: 'local-model', stream: true });
    expect(sent.body.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('You are Guide oracle'),
    });
    expect(sent.body.messages.at(-1)).toEqual({ role: 'user', content: 'Hi there' });
    expect(sent.body.tools).toContainEqual({
      type: 'function',
      function: {
        name: 'read_page',
        description: 'Reads the page title',
        parameters: { type: 'object', properties: {} },
      },
    });
    for (const secret of [user.invocation.serialized, user.delegation.serialized, 'sk-test-secret']) {
      expect(sent.raw).not.toContain(secret.slice(0, 32));
    }
  });

  it('answers with the scripted model when the request names it', async () => {
    const user = await newUser(app.oracleDid);
    const api = oracleApi(app.url, user);
    const session = await api.createSession();
    const before = fake.requests.length;
    const r = await api.call('POST', `/messages/${session.sessionId}`, {
      message: 'hello',
      model: 'scripted',
    });
    expect(r.body.message.content).toContain('You said: "hello"');
    expect(fake.requests.length).toBe(before);
  });
});
