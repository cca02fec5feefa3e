// sdk/README.md's app example, read from the README at test time (the fenced block after
// `<!-- example:app -->`) and rendered as written against the SDK's mocked oracle. The one change: its
// `react-dom/client` import is pointed at readme-root.ts (the real createRoot, its roots kept for unmounting).
import { act, screen, waitFor } from '@testing-library/react';
import { createOracleHandlers } from '@open-oracles/oracles-client-sdk/msw';
import { delay, http, HttpResponse } from 'msw';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { server, withMockServer } from './harness.js';
import { roots } from './readme-root.js';

withMockServer();

// The example signs with createDevSigner (ucanto, Web Crypto). vitest's jsdom puts jsdom's own Uint8Array and
// ArrayBuffer on the global object, another realm than Node's Web Crypto accepts: Node's for this file, as
// test/sdk-real/setup.ts does, given back after it (the files of a worker share globals, isolate: false).
let oracleDid = '';
const realm = { Uint8Array, ArrayBuffer, crypto: Object.getOwnPropertyDescriptor(globalThis, 'crypto') };
beforeAll(async () => {
  const NodeUint8Array = Object.getPrototypeOf(Buffer.prototype).constructor as Uint8ArrayConstructor;
  Object.assign(globalThis, {
    Uint8Array: NodeUint8Array,
    ArrayBuffer: new NodeUint8Array(0).buffer.constructor,
  });
  Object.defineProperty(globalThis, 'crypto', { value: webcrypto, configurable: true });
  const { createDevSigner } = await import('@open-oracles/oracles-client-sdk/dev');
  // The oracle's DID, as its /config gives it: a real did:key (the example's tokens are real UCANs).
  oracleDid = (await createDevSigner({ seed: 'readme-app oracle' })).did;
});
afterAll(() => {
  Object.assign(globalThis, { Uint8Array: realm.Uint8Array, ArrayBuffer: realm.ArrayBuffer });
  if (realm.crypto) Object.defineProperty(globalThis, 'crypto', realm.crypto);
});

const README = join(import.meta.dirname, '../../README.md');
const BASE_URL = 'http://localhost:3000'; // the example's

/** The fenced tsx block right after `<!-- example:app -->`, its list indentation removed. */
function readmeApp(): string {
  const readme = readFileSync(README, 'utf8');
  const block = /^( *)<!-- example:app -->\n\1```tsx\n([\s\S]*?)\n\1```$/m.exec(readme);
  if (!block) throw new Error('sdk/README.md has no ```tsx block after <!-- example:app -->');
  const indent = block[1] ?? '';
  return (block[2] ?? '')
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join('\n');
}

const dir = join(import.meta.dirname, `.tmp-readme-app-${process.pid}`);
let runs = 0;

/** Writes the example next to this file (so its imports resolve as the tests' do) and runs it. */
async function runReadmeApp(): Promise<void> {
  const source = readmeApp();
  const rooted = source.replace(`from 'react-dom/client';`, `from '../readme-root.js';`);
  expect(rooted).not.toBe(source);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `app-${++runs}.tsx`); // a new module each time: the example runs at its top level
  writeFileSync(file, rooted);
  const root = document.createElement('div');
  root.id = 'root';
  document.body.append(root);
  await act(async () => {
    await import(/* @vite-ignore */ file);
  });
}

/** The mocked oracle at the example's address; `POST /sessions` answers after 100 ms (counted). */
function oracleWithSlowCreate(answer?: () => Response): { creates: () => number; paths: () => string[] } {
  let creates = 0;
  const oracle = createOracleHandlers({ apiUrl: BASE_URL, config: { did: oracleDid } });
  server.use(
    http.post(`${BASE_URL}/sessions`, async () => {
      creates += 1;
      await delay(100);
      return answer?.(); // nothing: the mocked oracle's own handler answers
    }),
    ...oracle,
  );
  return { creates: () => creates, paths: () => oracle.control.requests.map((r) => r.path) };
}

afterEach(() => {
  act(() => roots.splice(0).forEach((r) => r.unmount()));
  document.getElementById('root')?.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe("sdk/README.md's app example", () => {
  it('creates one first session when POST /sessions takes 100 ms (it created 41-69 in 2 s: sessions was a new array each render)', async () => {
    const oracle = oracleWithSlowCreate();
    await runReadmeApp();
    // The session the effect created becomes the chat's: its history is read.
    await waitFor(() =>
      expect(oracle.paths().some((p) => /^\/sessions\/[^/]+\/messages$/.test(p))).toBe(true),
    );
    await act(() => delay(1000));
    expect(oracle.creates()).toBe(1);
  });

  it('shows a failed create and does not create again', async () => {
    const oracle = oracleWithSlowCreate(() =>
      HttpResponse.json({ code: 'internal', message: 'database down' }, { status: 500 }),
    );
    await runReadmeApp();
    await screen.findByText('database down');
    await act(() => delay(500));
    expect(oracle.creates()).toBe(1);
  });
});
