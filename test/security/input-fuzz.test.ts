// Bad input on every route of the agent service and its plugins (issue 36, finding 4): a NUL byte or a lone
// surrogate in any string (a path parameter, a query parameter, every string of a body, an object key), and JSON
// nested deeper than the documented limit, answer 400 `bad_request` naming where, quickly, and write nothing. A
// 5xx from any of them fails here. On embedded defaults, or on PostgreSQL + Redis when DATABASE_URL and REDIS_URL
// are set (as in CI).
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_MAX_DEPTH } from '../../contracts/unsafe-text.js';
import { USSD_INVALID_INPUT_REPLY } from '../../contracts/ussd.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { openTestRedis, TEST_REDIS_URL } from '../helpers/redis.js';
import { newUser, oracleApi, type OracleUser } from '../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../helpers/oracle/oracle-app.js';
import { ORACLE_ROUTES, requestFor, type Ids, type RouteKey } from '../helpers/security/routes.js';

/** Strings no route accepts, in JSON (a lone surrogate is written as its `\u` escape by JSON.stringify). */
const POISONS = {
  nul: 'a\u0000b',
  'lone high surrogate': 'a\ud800b',
  'lone low surrogate': '\udc00z',
} as const;

/** The same, as they arrive in a URL: `%00`, and the UTF-8 bytes of a surrogate code point (not valid UTF-8). */
const URL_POISONS = {
  nul: 'a%00b',
  'lone high surrogate': 'a%ED%A0%80b',
  'lone low surrogate': '%ED%B0%80z',
};

/** Bodies with every optional string field filled, so each can be poisoned (the others: test/helpers/security/routes.ts's). */
const FULL_BODIES: Partial<Record<RouteKey, (ids: Ids) => unknown>> = {
  'oracle.createSession': (ids) => ({ title: 'My chat', roomId: ids.roomId }),
  'oracle.send': (ids) => ({
    message: 'hello',
    model: 'scripted',
    metadata: { roomId: ids.roomId, note: 'from the app', nested: { list: ['x', { y: 'z' }] } },
    attachments: [
      { filename: 'a.txt', mimetype: 'text/plain', size: 3, mxcUri: 'mxc://example/a', eventId: '$e1' },
    ],
    tools: [
      {
        name: 'pageTitle',
        description: 'Reads the page title.',
        schema: { type: 'object', properties: { of: { type: 'string', description: 'which' } } },
      },
    ],
    agActions: [{ name: 'highlight', description: 'Highlights.', schema: { type: 'object' } }],
    timezone: 'Africa/Nairobi',
    homeServer: 'matrix.example',
    mcpInvocations: { search: 'token' },
  }),
  'memory.remember': () => ({ content: 'I grow maize.', tags: ['farm'] }),
};

/** A body for every route that takes one. */
function fullBody(key: RouteKey, ids: Ids): unknown {
  return FULL_BODIES[key]?.(ids) ?? requestFor(key, ids).body;
}

/** Every way to put `poison` in a JSON value: each string replaced, and a key added to each object. */
function poisoned(value: unknown, poison: string): { where: string; value: unknown }[] {
  const out: { where: string; value: unknown }[] = [];
  const walk = (v: unknown, path: string, set: (x: unknown) => unknown): void => {
    if (typeof v === 'string') {
      out.push({ where: path, value: set(poison) });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${path}[${i}]`, (x) => set(v.map((y, j) => (j === i ? x : y)))));
    } else if (v !== null && typeof v === 'object') {
      out.push({ where: `${path} (a key)`, value: set({ ...v, [poison]: 'value' }) });
      for (const [k, item] of Object.entries(v)) {
        walk(item, `${path}.${k}`, (x) => set({ ...v, [k]: x }));
      }
    }
  };
  walk(value, 'body', (x) => x);
  return out;
}

/** JSON nested `depth` deep: `{"a":{"a":…}}`. */
function deepObject(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** Query parameters each route reads. */
const QUERIES: Partial<Record<RouteKey, string[]>> = {
  'oracle.listSessions': ['limit', 'offset'],
  'oracle.listRooms': ['limit', 'offset'],
  'oracle.transcript': ['limit', 'before', 'after'],
  'oracle.rejoinRun': ['after'],
  'memory.list': ['q', 'limit', 'offset'],
  'preferences.get': ['roomId'],
};

interface Case {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  raw?: string;
}

function cases(ids: Ids): Case[] {
  const all: Case[] = [];
  for (const key of Object.keys(ORACLE_ROUTES) as RouteKey[]) {
    const base = requestFor(key, ids);
    const route = ORACLE_ROUTES[key];
    // Path parameters.
    for (const param of route.path.match(/:[A-Za-z]+/g) ?? []) {
      for (const [label, poison] of Object.entries(URL_POISONS)) {
        const path = route.path
          .replace(param, poison)
          .replace(/:([A-Za-z]+)/g, (_m, name: keyof Ids) =>
            encodeURIComponent(ids[name] ?? 'call_00000000-0000-4000-8000-000000000000'),
          );
        all.push({
          name: `${key}: ${label} in ${param}`,
          method: route.method,
          path,
          ...(base.body === undefined ? {} : { body: base.body }),
        });
      }
    }
    // Query parameters.
    for (const param of QUERIES[key] ?? []) {
      for (const [label, poison] of Object.entries(URL_POISONS)) {
        const [path] = base.path.split('?');
        all.push({
          name: `${key}: ${label} in ?${param}`,
          method: route.method,
          path: `${path}?${param}=${poison}`,
        });
      }
    }
    // Bodies: every string, every key, and nesting past the limit.
    const body = fullBody(key, ids);
    if (body !== undefined) {
      for (const [label, poison] of Object.entries(POISONS)) {
        for (const variant of poisoned(body, poison)) {
          all.push({
            name: `${key}: ${label} in ${variant.where}`,
            method: route.method,
            path: base.path,
            body: variant.value,
          });
        }
      }
      all.push({
        name: `${key}: JSON nested ${JSON_MAX_DEPTH + 1} deep`,
        method: route.method,
        path: base.path,
        body: { ...(body as object), metadata: deepObject(JSON_MAX_DEPTH) },
      });
      // 5,000 deep, under 1 MiB: overflowed the stack while the run was stored, and answered 503 after 5 s.
      all.push({
        name: `${key}: JSON nested 5,000 deep`,
        method: route.method,
        path: base.path,
        raw: `{"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)},"message":"hi"}`,
      });
    }
  }
  return all;
}

describe(`bad input on every route (${TEST_REDIS_URL ? 'PostgreSQL + Redis' : 'embedded'})`, () => {
  let app: OracleApp;
  let redis: Redis | undefined;
  let user: OracleUser;
  let ids: Ids;
  let api: ReturnType<typeof oracleApi>;

  beforeAll(async () => {
    redis = TEST_REDIS_URL ? await openTestRedis() : undefined;
    app = await startOracleApp({
      env: { ORACLE_FEATURES: 'memory,credits', CREDITS_INITIAL_BALANCE: '1000' },
      ...(redis ? { redis } : {}),
    });
    user = await newUser(app.oracleDid);
    api = oracleApi(app.url, user);
    const room = (await api.call('POST', '/rooms', { name: 'Room' })).body as { roomId: string };
    const session = (await api.call('POST', '/sessions', { roomId: room.roomId })).body as {
      sessionId: string;
    };
    const turn = await api.stream(session.sessionId, { message: 'first' });
    const memory = (await api.call('POST', '/memory', { content: 'I grow maize.' })).body as { id: string };
    const other = await newUser(app.oracleDid);
    ids = {
      sessionId: session.sessionId,
      runId: turn.response.headers.get('x-run-id') ?? '',
      roomId: room.roomId,
      memberDid: other.did,
      memoryId: memory.id,
    };
  });
  afterAll(async () => {
    await app.close();
    redis?.disconnect();
  });

  it('the full bodies are well-formed (so every refusal below is the poison, not the body)', async () => {
    for (const key of ['oracle.send', 'oracle.createSession', 'memory.remember'] as const) {
      const req = requestFor(key, ids);
      const r = await api.call(req.method, req.path, fullBody(key, ids));
      expect(r.status, key).toBeLessThan(300);
    }
  });

  it('each answers 400 bad_request naming where, in under a second, and writes nothing', async () => {
    const history = async () => (await api.call('GET', `/messages/${ids.sessionId}`)).body;
    const lists = async () =>
      Promise.all(
        ['/sessions?limit=100', '/rooms?limit=100', '/memory?limit=100'].map(
          async (p) => (await api.call('GET', p)).body,
        ),
      );
    const [historyBefore, listsBefore] = [await history(), await lists()];
    const failures: string[] = [];
    let slowest = { name: '', ms: 0 };
    const all = cases(ids);
    for (const c of all) {
      const started = performance.now();
      const response = await fetch(`${app.url}${c.path}`, {
        method: c.method,
        headers: { ...user.headers, 'content-type': 'application/json' },
        ...(c.raw !== undefined
          ? { body: c.raw }
          : c.body === undefined
            ? {}
            : { body: JSON.stringify(c.body) }),
      });
      const text = await response.text();
      const ms = performance.now() - started;
      if (ms > slowest.ms) slowest = { name: c.name, ms };
      let body: { code?: string; message?: string } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // Reported below.
      }
      if (response.status !== 400 || body.code !== 'bad_request') {
        failures.push(`${c.name}: ${response.status} ${text.slice(0, 160)}`);
      } else if (ms > 1000) {
        failures.push(`${c.name}: took ${Math.round(ms)} ms`);
      }
    }
    expect(failures).toEqual([]);
    expect(all.length).toBeGreaterThan(150);
    // Nothing was written: the thread, the sessions, the rooms and the memories are as they were.
    expect(await history()).toEqual(historyBefore);
    expect(await lists()).toEqual(listsBefore);
    expect(slowest.ms).toBeLessThan(1000);
  });

  it('the refusal names the field and the reason, never echoing the value', async () => {
    const r = await api.call('POST', `/messages/${ids.sessionId}`, {
      message: 'hi',
      metadata: { note: 'secret\u0000value' },
    });
    expect(r).toMatchObject({
      status: 400,
      body: {
        code: 'bad_request',
        message: 'body.metadata.note: a NUL character (U+0000) is not accepted in any text.',
      },
    });
    const s = await api.call('POST', '/rooms', { name: 'x\ud800' });
    expect(s.body.message).toBe('body.name: a lone surrogate (U+D800) is not text; send well-formed UTF-16.');
    const deep = await api.call('POST', `/messages/${ids.sessionId}`, {
      message: 'hi',
      metadata: deepObject(JSON_MAX_DEPTH),
    });
    expect(deep.body.message).toBe(`body: JSON nested deeper than ${JSON_MAX_DEPTH} levels is not accepted.`);
    const q = await api.call('GET', '/memory?q=%00');
    expect(q.body.message).toBe('query.q: a NUL character (U+0000) is not accepted in any text.');
    const p = await api.call('GET', '/rooms/room_%00');
    expect(p.body.message).toBe('path: a NUL character (U+0000) is not accepted in any text.');
  });
});

// The USSD gateway answers invalid input in its own words (spec section 7 A): a NUL or a lone surrogate in the
// session id or the text is invalid input, and no session is made of it. A form body's bytes that are not UTF-8
// (`%ED%A0%80`) are read as U+FFFD by the form parser, so they are text: served, never a 5xx.
describe('bad input on the USSD gateway', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '1000000' } });
  });
  afterAll(() => t.close());

  const post = (body: string, type: string) =>
    fetch(`${t.url}/api/ussd`, { method: 'POST', headers: { 'content-type': type }, body });
  const form = (fields: Record<string, string>) =>
    Object.entries(fields)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
  const fresh = () => `fz-${Math.random().toString(36).slice(2)}`;

  it.each(
    Object.entries(POISONS).flatMap(([label, poison]) =>
      (['sessionId', 'text'] as const).map((field) => [label, field, poison] as const),
    ),
  )('%s in %s (JSON): END Invalid input, and no session', async (_label, field, poison) => {
    const sessionId = fresh();
    const body = { sessionId, serviceCode: '*384*123#', phoneNumber: '+254712345678', text: '' };
    const r = await post(JSON.stringify({ ...body, [field]: `${body[field]}${poison}` }), 'application/json');
    expect(r.status).toBe(200);
    expect(await r.text()).toBe(USSD_INVALID_INPUT_REPLY);
    expect(JSON.stringify(await (await fetch(`${t.url}/api/ussd/sessions`)).json())).not.toContain(sessionId);
  });

  /** A form post whose `field` ends with the percent-encoded `bytes`. */
  const formWith = (field: 'sessionId' | 'text', bytes: string) => {
    const fields = {
      sessionId: fresh(),
      serviceCode: '*384*123%23',
      phoneNumber: '%2B254712345678',
      text: '',
    };
    return post(
      form({ ...fields, [field]: `${fields[field]}${bytes}` }),
      'application/x-www-form-urlencoded',
    );
  };

  it.each(['sessionId', 'text'] as const)('a NUL in %s (form): END Invalid input', async (field) => {
    expect(await (await formWith(field, 'a%00b')).text()).toBe(USSD_INVALID_INPUT_REPLY);
  });

  it.each(['sessionId', 'text'] as const)(
    'bytes that are not UTF-8 in %s (form): read as U+FFFD, served',
    async (field) => {
      const r = await formWith(field, 'a%ED%A0%80b');
      expect(r.status).toBe(200);
      expect(await r.text()).toMatch(/^(CON|END) /);
    },
  );
});
