// A render test in jsdom with the installed tarball: the provider, a chat against the package's own MSW kit
// (chain resolution, history, a streamed answer, a component, a browser tool over the socket).
import { JSDOM } from 'jsdom';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const dom = new JSDOM('<!doctype html><div id="root"></div>', {
  pretendToBeVisual: true,
  url: 'http://localhost/',
});
for (const key of [
  'window',
  'document',
  'navigator',
  'HTMLElement',
  'Node',
  'WebSocket',
  'requestAnimationFrame',
  'cancelAnimationFrame',
]) {
  Object.defineProperty(globalThis, key, {
    value: key === 'window' ? dom.window : dom.window[key],
    configurable: true,
    writable: true,
  });
}
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

const React = await import('react');
const { createRoot } = await import('react-dom/client');
const { setupServer } = await import('msw/node');
const { z } = await import('zod');
const sdk = await import('@open-oracles/oracles-client-sdk');
const { createOracleHandlers } = await import('@open-oracles/oracles-client-sdk/msw');
// ./dev is ESM only (its @ucanto peers are ESM only); it imports and signs.
const { createDevSigner } = await import('@open-oracles/oracles-client-sdk/dev');
const devUser = await createDevSigner({ seed: 'proof' });
assert.match(devUser.did, /^did:key:z6Mk/);
assert.ok((await devUser.createDelegation('did:ixo:entity:o')).serialized.length > 100);
const h = React.createElement;

// The CommonJS build loads too, and names the same exports.
const require = createRequire(import.meta.url);
for (const entry of ['', '/live-agent', '/msw', '/chain']) {
  const cjs = require(`@open-oracles/oracles-client-sdk${entry}`);
  const esm = await import(`@open-oracles/oracles-client-sdk${entry}`);
  assert.deepEqual(
    Object.keys(cjs)
      .filter((k) => k !== 'default')
      .sort(),
    Object.keys(esm).sort(),
    `exports of ${entry || '.'}`,
  );
}

const oracle = createOracleHandlers({
  sessions: [
    {
      sessionId: 's1',
      createdAt: '2026-11-01T10:00:00.000Z',
      lastUpdatedAt: '2026-11-01T10:00:00.000Z',
      oracleName: 'o',
      oracleDid: 'did:key:o',
    },
  ],
  history: { s1: [{ id: 'h1', type: 'human', content: 'earlier question' }] },
  script: [
    { type: 'text', text: 'Here is the weather. ' },
    { type: 'render_component', componentName: 'WeatherCard', args: { city: 'Nairobi' } },
    { type: 'browser_tool_call', toolName: 'pageTitle', args: {} },
    { type: 'text', text: 'Done.' },
  ],
});
const server = setupServer(...oracle);
server.listen({ onUnhandledRequest: 'error' });
dom.window.document.title = 'Consumer app';

const uiComponents = {
  WeatherCard: ({ city }) => h('strong', { 'data-city': city }, `Weather in ${city}`),
  ToolCall: ({ toolName, status }) => h('small', null, ` [${toolName} ${status}] `),
};
let chat;
function Chat() {
  chat = sdk.useChat({
    oracleDid: oracle.control.oracleDid,
    sessionId: 's1',
    onPaymentRequiredError: () => undefined,
    uiComponents,
    browserTools: {
      pageTitle: {
        toolName: 'pageTitle',
        description: 'title',
        schema: z.object({}),
        fn: () => document.title,
      },
    },
  });
  return h(
    'div',
    null,
    h('span', { id: 'status' }, chat.status),
    ...chat.messages.map((m) =>
      h('p', { key: m.id, className: m.type }, sdk.renderMessageContent(m.content, uiComponents)),
    ),
  );
}
const root = createRoot(document.getElementById('root'));
await React.act(async () => {
  root.render(
    h(
      sdk.OraclesProvider,
      {
        initialWallet: {
          address: 'ixo1',
          did: 'did:key:z6MkConsumer',
          matrix: { accessToken: 't', homeServer: 'http://m.test' },
        },
        transactSignX: async () => 'tx',
        createDelegation: async () => ({ serialized: 'delegation', expiresAt: Date.now() + 3_600_000 }),
        chainRestUrl: oracle.control.chainRestUrl,
      },
      h(Chat),
    ),
  );
});
const until = async (what, cond, ms = 5000) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await React.act(() => new Promise((r) => setTimeout(r, 10)));
  }
};
await until('history and socket', () => chat.messages.length === 1 && chat.isRealTimeConnected);
await React.act(async () => chat.sendMessage('weather?'));
await until('the answer', () => chat.status === 'ready' && chat.messages.length === 3);
const ai = document.querySelector('p.ai');
// The text first, then the parts in order (the layout history gives after a reload).
assert.equal(ai.textContent, 'Here is the weather. Done.Weather in Nairobi [pageTitle done] ');
assert.equal(document.querySelector('strong').dataset.city, 'Nairobi');
assert.deepEqual(
  oracle.control.toolResults.map((r) => r.result),
  ['Consumer app'],
);
await React.act(async () => root.unmount());
server.close();
console.log(`render test passed with react ${React.version}`);
process.exit(0);
