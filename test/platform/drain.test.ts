import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { Router } from 'express';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { SILENT_CONNECTION_GRACE_MS } from '../../server/http-drain.js';
import type { Part } from '../../server/part.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { openTestDb } from '../helpers/db.js';
import { newUser, oracleApi } from '../helpers/oracle/oracle-client.js';
import { newOracleKey, startOracleApp } from '../helpers/oracle/oracle-app.js';
import { connectSocket } from '../helpers/oracle/socket-client.js';

// Issue 16 item 2: a stop (SIGTERM, main.ts → server.close()) drains. Regression of "SIGTERM under load reset
// all 40 requests in flight": server.ts called closeAllConnections() right after close().

/** A part whose one route answers after `ms`, and counts the requests it has begun. */
function slowPart(ms: number): { started: () => number; factory: () => Promise<Part> } {
  let started = 0;
  const router = Router();
  router.get('/slow', (_req, res) => {
    started++;
    setTimeout(() => res.json({ ok: true }), ms);
  });
  return {
    started: () => started,
    factory: () => Promise.resolve({ name: 'chain', router, close: () => Promise.resolve() }),
  };
}

/** GET over a fresh connection each; resolves with the status, or the error's code. */
function get(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/**
 * A GET on a raw connection, opened at once (the kernel completes a loopback connect before `connect` returns,
 * so it waits in the listener's accept queue until the server's event loop accepts it); the request's bytes go
 * out at once, or `writeAfterMs` after the connection is up. Resolves with the answer's status line, or the
 * error's code, or `closed unanswered`.
 */
function rawGet(port: number, urlPath: string, writeAfterMs?: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const request = `GET ${urlPath} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    if (writeAfterMs === undefined) socket.write(request);
    else socket.once('connect', () => setTimeout(() => socket.write(request), writeAfterMs));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on('close', () => resolve(text.split('\r\n')[0] || 'closed unanswered'));
  });
}

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function slowApp(ms: number, drainMs: number): Promise<{ t: TestApp; started: () => number }> {
  const slow = slowPart(ms);
  const t = await startTestApp({
    db: await openTestDb(),
    env: { ENABLED_PARTS: 'chain', DRAIN_TIMEOUT_MS: String(drainMs) },
    parts: { chain: slow.factory },
  });
  return { t, started: slow.started };
}

describe('graceful drain', () => {
  it('sigterm under load no longer resets the requests in flight: they finish, then the server closes', async () => {
    const { t, started } = await slowApp(400, 10_000);
    try {
      const inFlight = Array.from({ length: 40 }, () => get(`${t.url}/slow`));
      await waitFor(() => started() === 40);
      const stopping = t.server.close();
      expect(t.server.lifecycle.draining).toBe(true);
      // Balancers polling /health see the drain (here through the app in-process: the listener is closed).
      const health = await supertest(t.app).get('/health').expect(503);
      expect(health.body).toMatchObject({ status: 'draining', database: 'connected' });
      // New connections are refused.
      expect(await get(`${t.url}/slow`)).toBe('ECONNREFUSED');
      expect(await Promise.all(inFlight)).toEqual(Array.from({ length: 40 }, () => 200));
      await stopping;
    } finally {
      await t.close();
      await t.db.close();
    }
  });

  it('answers a request whose connection still waited in the accept queue when the stop began', async () => {
    const { t, started } = await slowApp(50, 10_000);
    try {
      // Opened and written in the same tick as the stop: the server has not accepted them yet.
      const queued = Array.from({ length: 20 }, () => rawGet(t.server.port, '/slow'));
      const stopping = t.server.close();
      expect(await Promise.all(queued)).toEqual(Array.from({ length: 20 }, () => 'HTTP/1.1 200 OK'));
      expect(started()).toBe(20);
      await stopping;
    } finally {
      await t.close();
      await t.db.close();
    }
  });

  it('closes a connection that sends nothing (a pre-connect) soon after the grace, not at DRAIN_TIMEOUT_MS', async () => {
    const { t } = await slowApp(50, 10_000);
    try {
      const silent = net.connect(t.server.port, '127.0.0.1');
      const gone = once(silent, 'close');
      await once(t.server.http, 'connection');
      const t0 = Date.now();
      await t.server.close();
      const took = Date.now() - t0;
      await gone;
      expect(took).toBeGreaterThanOrEqual(SILENT_CONNECTION_GRACE_MS);
      expect(took).toBeLessThan(SILENT_CONNECTION_GRACE_MS + 1500);
    } finally {
      await t.close();
      await t.db.close();
    }
  });

  it('answers a request that arrives on a connection accepted just before the stop', async () => {
    const { t, started } = await slowApp(50, 10_000);
    try {
      // The connection is accepted before the stop; its request is sent 30 ms after the connection is up (a slow
      // client, a network with latency). Closing idle connections must not count this one idle.
      const accepted = once(t.server.http, 'connection');
      const late = rawGet(t.server.port, '/slow', 30);
      await accepted;
      const stopping = t.server.close();
      expect(await late).toBe('HTTP/1.1 200 OK');
      expect(started()).toBe(1);
      await stopping;
    } finally {
      await t.close();
      await t.db.close();
    }
  });

  it('cuts the requests still in flight at DRAIN_TIMEOUT_MS, and no later', async () => {
    const { t, started } = await slowApp(30_000, 300);
    try {
      const stuck = get(`${t.url}/slow`);
      await waitFor(() => started() === 1);
      const t0 = Date.now();
      await t.server.close();
      const took = Date.now() - t0;
      expect(took).toBeGreaterThanOrEqual(250);
      expect(took).toBeLessThan(2000);
      expect(await stuck).toBe('ECONNRESET');
    } finally {
      await t.close();
      await t.db.close();
    }
  });

  it('ends agent event streams and sockets at once, not at the drain timeout', async () => {
    await using db = await openTestDb();
    const a = await startOracleApp({ db, env: { SCRIPTED_MODEL_DELAY_MS: '20', DRAIN_TIMEOUT_MS: '8000' } });
    const user = await newUser(a.oracleDid);
    const api = oracleApi(a.url, user);
    const session = await api.createSession();
    const tab = await connectSocket(a.url, user, session.sessionId);
    const disconnected = new Promise<string>((resolve) => tab.socket.once('disconnect', resolve));
    let closed: Promise<void> | undefined;
    let t0 = 0;
    const comments: string[] = [];
    const streamed = await api.stream(
      session.sessionId,
      { message: 'write a long story' },
      (_e, all) => {
        if (all.length === 5 && !closed) {
          t0 = Date.now();
          closed = a.close();
        }
        return false;
      },
      (comment) => void comments.push(comment),
    );
    await closed;
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(comments).toContain('draining');
    expect(streamed.events.some((e) => e.event === 'done')).toBe(false);
    // A transport close: socket.io clients reconnect by themselves (a server-side disconnect would not).
    expect(await disconnected).toBe('transport close');
    tab.close();
  });

  it('a run whose stream was drained stays re-joinable on the successor', async () => {
    await using db = await openTestDb();
    const signingKey = await newOracleKey();
    const env = { SCRIPTED_MODEL_DELAY_MS: '5', ORACLE_RUN_LEASE_SECONDS: '1' };
    const a = await startOracleApp({ db, signingKey, env });
    const user = await newUser(a.oracleDid);
    const session = await oracleApi(a.url, user).createSession();
    let closed: Promise<void> | undefined;
    const first = await oracleApi(a.url, user).stream(
      session.sessionId,
      { message: 'write a long story' },
      (_e, all) => {
        if (all.length === 10) closed ??= a.close();
      },
    );
    await closed;
    expect(first.events.length).toBeGreaterThanOrEqual(10);
    expect(first.comments).toContain('draining');
    // The successor streams the rest without pauses: the test waits for the end of the answer.
    await using b = await startOracleApp({ db, signingKey, env: { ...env, SCRIPTED_MODEL_DELAY_MS: '1' } });
    const runId = first.response.headers.get('x-run-id') as string;
    const rest = await oracleApi(b.url, user).rejoin(runId, first.events.at(-1)?.id as number);
    expect(rest.response.status).toBe(200);
    expect(rest.events.find((e) => e.event === 'run')?.data).toMatchObject({ runId, resumed: true });
    expect(rest.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
  });
});
