import type { RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oraclePart } from '../../../server/oracle/part.js';
import { definePlugin } from '../../../server/oracle/runtime/plugin.js';
import { newUser, oracleApi, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';

// Regression test for issue 26: `POST /messages/abort` must be answered before the stream's `done` is
// written (the published SDK awaits the abort answer before it drops its own connection). abort-and-one-stream.test.ts checks
// that both happen; this one records, inside the server, the order in which they happen: a plugin middleware
// (run on every authenticated route) notes when the abort answer is finished and when a chunk carrying the
// `done` frame is written to the chat's response. No timing is involved: both entries come from the server's
// own event loop.

/** What the server did, in order. */
const journal: string[] = [];

const recordOrder: RequestHandler = (req, res, next) => {
  if (req.method === 'POST' && req.path === '/messages/abort') {
    // Registered before the route's own 'finish' listener (which releases `done`): it runs first.
    res.once('finish', () => journal.push('abort answered'));
  } else if (req.method === 'POST' && req.path.startsWith('/messages/')) {
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (String(chunk).includes('event: done')) journal.push('done written');
      return write(chunk, ...rest);
    }) as typeof res.write;
  }
  next();
};

const orderRecorder = definePlugin({
  manifest: {
    name: 'order-recorder',
    title: 'Order recorder',
    summary: 'Records the order of the abort answer and the done frame (tests only).',
    visibility: 'silent',
    stability: 'experimental',
    category: 'automation',
    defaultOn: true,
    dependsOn: [],
    requiredEnv: [],
  },
  middleware: [recordOrder],
});

let app: OracleApp;
let user: OracleUser;
let api: ReturnType<typeof oracleApi>;

beforeAll(async () => {
  app = await startOracleApp({
    env: { SCRIPTED_MODEL_DELAY_MS: '3' },
    parts: { oracle: oraclePart({ extraPlugins: [orderRecorder] }) },
  });
  user = await newUser(app.oracleDid);
  api = oracleApi(app.url, user);
});
afterAll(() => app.close());

describe('abort answer before done', () => {
  it('POST /messages/abort is answered before the stream’s done frame is written', async () => {
    const session = await api.createSession();
    let abort: Promise<{ status: number; body: unknown }> | undefined;
    const { events } = await api.stream(session.sessionId, { message: 'write a long story' }, (_e, all) => {
      if (all.filter((e) => e.event === 'message').length === 20 && !abort) {
        abort = api.call('POST', '/messages/abort', { sessionId: session.sessionId });
      }
    });
    expect(await abort).toMatchObject({ status: 200, body: { success: true } });
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'aborted' } });
    expect(journal).toEqual(['abort answered', 'done written']);
  });
});
