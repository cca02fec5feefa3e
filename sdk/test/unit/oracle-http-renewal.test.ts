// OracleHttp's recovery from a 401, by the server's code (issue 35 item 1): `auth_expired` mints only the
// invocation again (no wallet prompt); without createInvocation the delegation is the only token, so it is
// minted and posted; `delegation_missing`/`delegation_expired` mint and post a delegation; any other 401 is
// the caller's error, and nothing is minted.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TokenCache } from '../../src/auth/token-cache.js';
import { OracleHttp } from '../../src/http/oracle-http.js';

const ORACLE = 'did:key:z6MkOracle';
const USER = 'did:key:z6MkUser';

function setup(withInvocation: boolean, answers: { status: number; body: unknown }[]) {
  const minted: string[] = [];
  const onReauthorize = vi.fn(() => true);
  const tokens = new TokenCache(
    (kind) => {
      minted.push(kind);
      return Promise.resolve({ serialized: `${kind}-${minted.length}`, expiresAt: Date.now() + 3_600_000 });
    },
    Date.now,
    undefined,
    onReauthorize,
  );
  const requests: { url: string; headers: Record<string, string> }[] = [];
  vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
    requests.push({ url, headers: init.headers as Record<string, string> });
    const next = url.endsWith('/delegation')
      ? { status: 201, body: {} }
      : (answers.shift() ?? { status: 200, body: {} });
    return Promise.resolve(
      new Response(JSON.stringify(next.body), {
        status: next.status,
        headers: { 'content-type': 'application/json' },
      }),
    );
  });
  const http = new OracleHttp('http://oracle.test', ORACLE, { userDid: USER, tokens, withInvocation });
  return { http, minted, requests, onReauthorize };
}

afterEach(() => vi.unstubAllGlobals());

const get = (http: OracleHttp) => http.json({ method: 'GET', path: '/sessions' });
const refused = (code: string) => ({ status: 401, body: { code, message: code, statusCode: 401 } });

describe('a 401 from the oracle', () => {
  it('auth_expired: only the invocation is minted again; the wallet is not asked and nothing is posted', async () => {
    const { http, minted, requests, onReauthorize } = setup(true, [refused('auth_expired')]);
    await get(http);
    expect(minted.sort()).toEqual(['delegation', 'invocation', 'invocation']);
    expect(onReauthorize).not.toHaveBeenCalled();
    expect(requests.map((r) => r.url)).toEqual([
      'http://oracle.test/sessions',
      'http://oracle.test/sessions',
    ]);
    expect(requests[1]?.headers['authorization']).toBe('Bearer invocation-3');
    expect(requests[1]?.headers['x-ucan-delegation']).toBe(requests[0]?.headers['x-ucan-delegation']);
  });

  it('auth_expired without createInvocation: the delegation, the only token, is minted again and posted', async () => {
    const { http, minted, requests } = setup(false, [refused('auth_expired')]);
    await get(http);
    expect(minted).toEqual(['delegation', 'delegation']);
    expect(requests.map((r) => r.url)).toEqual([
      'http://oracle.test/sessions',
      'http://oracle.test/delegation',
      'http://oracle.test/sessions',
    ]);
  });

  it.each(['delegation_missing', 'delegation_expired'])(
    '%s: a delegation is minted (the wallet asked first), posted, and the request sent again',
    async (code) => {
      const { http, requests, onReauthorize } = setup(true, [refused(code)]);
      await get(http);
      expect(onReauthorize).toHaveBeenCalledWith({ oracleDid: ORACLE, userDid: USER, reason: code });
      expect(requests.map((r) => r.url)).toEqual([
        'http://oracle.test/sessions',
        'http://oracle.test/delegation',
        'http://oracle.test/sessions',
      ]);
    },
  );

  it.each(['auth_bad_signature', 'auth_wrong_audience', 'auth_missing'])(
    "%s: the caller's error, naming the step and the code; nothing minted again",
    async (code) => {
      const { http, minted } = setup(true, [refused(code)]);
      await expect(get(http)).rejects.toMatchObject({ status: 401, code, step: 'GET /sessions' });
      expect(minted.sort()).toEqual(['delegation', 'invocation']);
    },
  );
});

describe('a request whose answer does not begin', () => {
  const hanging = () =>
    vi.stubGlobal(
      'fetch',
      (_url: string, init: RequestInit) =>
        new Promise((_resolve, reject) => {
          // As fetch does: an aborted signal rejects at once, or when it aborts.
          const rejectAborted = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
          if (init.signal?.aborted) rejectAborted();
          else init.signal?.addEventListener('abort', rejectAborted);
        }),
    );
  const client = (timeoutMs?: number) =>
    new OracleHttp('http://oracle.test', ORACLE, {
      userDid: USER,
      tokens: new TokenCache(() => Promise.resolve({ serialized: 't', expiresAt: Date.now() + 3_600_000 })),
      withInvocation: false,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });

  // Issue 35 item 4: there was no timeout, and a hung route left the hooks loading for ever.
  it('fails after the timeout with code timeout, naming the step and the URL', async () => {
    hanging();
    await expect(get(client(50))).rejects.toMatchObject({
      name: 'OracleRequestError',
      status: 0,
      code: 'timeout',
      step: 'GET /sessions',
      message: 'The session list failed: http://oracle.test/sessions did not answer within 0.05 s',
    });
  });

  it("the caller's own abort is an abort, not a timeout", async () => {
    hanging();
    const caller = new AbortController();
    const pending = client(10_000).json({ method: 'GET', path: '/sessions', signal: caller.signal });
    caller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
