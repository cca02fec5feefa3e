import type { Json } from './oracle-client.js';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';

/** What the fake endpoint streams back for one request. */
export interface FakeCompletion {
  reasoning?: string[];
  text?: string[];
  /** Tool calls, their arguments split in pieces the way OpenAI streams them. */
  toolCalls?: { id: string; name: string; argumentPieces: string[] }[];
}

/**
 * A local server speaking the OpenAI Chat Completions streaming protocol (`POST /v1/chat/completions`,
 * `data: {chunk}` lines, `data: [DONE]`), scripted per request, recording what it was sent.
 */
export async function startFakeOpenAi(script: (body: Json, index: number) => FakeCompletion) {
  const requests: { headers: Record<string, unknown>; body: Json; raw: string }[] = [];
  const app = express();
  app.use(express.json({ limit: '5mb' }));
  app.post('/v1/chat/completions', (req, res) => {
    requests.push({ headers: req.headers, body: req.body, raw: JSON.stringify(req.body) });
    const plan = script(req.body, requests.length - 1);
    res.setHeader('content-type', 'text/event-stream');
    const send = (delta: Record<string, unknown>, finish: string | null = null): void => {
      const chunk = {
        id: 'chatcmpl-test',
        object: 'chat.completion.chunk',
        created: 0,
        model: req.body.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    send({ role: 'assistant', content: '' });
    for (const r of plan.reasoning ?? []) send({ reasoning_content: r });
    for (const t of plan.text ?? []) send({ content: t });
    (plan.toolCalls ?? []).forEach((call, index) => {
      send({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      });
      for (const piece of call.argumentPieces)
        send({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    send({}, plan.toolCalls?.length ? 'tool_calls' : 'stop');
    res.write('data: [DONE]\n\n');
    res.end();
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
