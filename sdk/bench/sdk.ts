// SDK benchmark (issue 21 §7): the core entry's size min+gzip with its peers external (react, react-dom,
// zod, @tanstack/react-query); renders per animation frame while 500 tokens/s stream, in `batched` and
// `immediate` mode; heap growth of a 5,000-message thread and of a streamed answer into it. Each line says
// whether it meets its target. Run: npm run bench:sdk (node --expose-gc).
import { build } from 'esbuild';
import { JSDOM } from 'jsdom';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const TOKENS_PER_SECOND = 500;
const STREAM_SECONDS = Number(process.env['BENCH_SDK_SECONDS'] ?? 4);
const THREAD = 5000;
const sdkDir = fileURLToPath(new URL('..', import.meta.url));

// --- bundle size -------------------------------------------------------------------------------------------
async function bundleSize(): Promise<{ eager: number; eagerGz: number; lazy: number; lazyGz: number }> {
  const out = await build({
    entryPoints: [`${sdkDir}src/index.ts`],
    bundle: true,
    minify: true,
    format: 'esm',
    splitting: true,
    platform: 'browser',
    target: 'es2022',
    outdir: '/tmp/sdk-bench-bundle',
    write: false,
    metafile: true,
    // The peers: an app has them anyway (TanStack Query's core comes with @tanstack/react-query).
    external: [
      'react',
      'react-dom',
      'react/jsx-runtime',
      'zod',
      '@tanstack/react-query',
      '@tanstack/query-core',
    ],
    logLevel: 'silent',
  });
  let eager = 0;
  let eagerGz = 0;
  let lazy = 0;
  let lazyGz = 0;
  for (const file of out.outputFiles) {
    const gz = gzipSync(file.contents, { level: 9 }).length;
    if (file.path.endsWith('/index.js')) {
      eager += file.contents.length;
      eagerGz += gz;
    } else {
      lazy += file.contents.length;
      lazyGz += gz;
    }
  }
  return { eager, eagerGz, lazy, lazyGz };
}

// --- a browser-like global scope for React ------------------------------------------------------------------
function installDom(): void {
  const dom = new JSDOM('<!doctype html><div id="root"></div>', {
    pretendToBeVisual: true,
    url: 'http://localhost/',
  });
  const w = dom.window as unknown as Record<string, unknown>;
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
      value: key === 'window' ? w : w[key],
      configurable: true,
      writable: true,
    });
  }
  (globalThis as Record<string, unknown>)['IS_REACT_ACT_ENVIRONMENT'] = false;
}

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(2)} MB`;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A headline figure for `npm run bench` (bench/run-all.ts), written to BENCH_JSON_OUT when it is set. */
interface Figure {
  id: string;
  label: string;
  value: number;
  unit: string;
  better: 'higher' | 'lower';
}
const figures: Figure[] = [];

async function main(): Promise<void> {
  const size = await bundleSize();
  const CORE_TARGET = 20 * 1024;
  figures.push({
    id: 'sdk.coreEntryKb',
    label: 'SDK core entry, min+gzip (peers external)',
    value: size.eagerGz / 1024,
    unit: 'KB',
    better: 'lower',
  });
  console.log(
    `core entry (react, react-dom, zod, @tanstack/react-query external), min: ${kb(size.eager)}, min+gzip: ${kb(size.eagerGz)} — target ≤ 20 KB: ${size.eagerGz <= CORE_TARGET ? 'met' : 'MISSED'}`,
  );
  console.log(
    `  + chunks loaded on demand (socket.io-client at the first chat connect, zod-to-json-schema at the first message with tools), min: ${kb(size.lazy)}, min+gzip: ${kb(size.lazyGz)}`,
  );
  console.log(`  = everything the root entry can load, min+gzip: ${kb(size.eagerGz + size.lazyGz)}`);

  installDom();
  const React = await import('react');
  const { createRoot } = await import('react-dom/client');
  const { http } = await import('msw');
  const { setupServer } = await import('msw/node');
  const sdk = await import('../src/index.js');
  const { createOracleHandlers } = await import('../src/msw.js');

  const thread = Array.from({ length: THREAD }, (_, i) => ({
    id: `m${i}`,
    type: i % 2 === 0 ? ('human' as const) : ('ai' as const),
    content: `Message ${i}: ${'lorem ipsum '.repeat(8)}`,
  }));
  const oracle = createOracleHandlers({
    sessions: [
      {
        sessionId: 'bench',
        title: 'Bench',
        createdAt: '2026-11-01T10:00:00.000Z',
        lastUpdatedAt: '2026-11-01T10:00:00.000Z',
        oracleName: 'o',
        oracleDid: 'did:key:o',
      },
    ],
    history: { bench: thread, warm: [] },
    legacyHistoryOnly: true,
  });
  oracle.control.sessions.push({
    sessionId: 'warm',
    title: 'Warm-up',
    createdAt: '2026-11-01T10:00:00.000Z',
    lastUpdatedAt: '2026-11-01T10:00:00.000Z',
    oracleName: 'o',
    oracleDid: 'did:key:o',
  });
  const enc = new TextEncoder();
  const totalTokens = TOKENS_PER_SECOND * STREAM_SECONDS;
  let turn = 0;
  // One token per network read, 500 a second: each read is its own macrotask, the worst case for rendering.
  const streamHandler = http.post(`${oracle.control.apiUrl}/messages/bench`, () => {
    const id = `req_${++turn}`;
    const body = new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(enc.encode(`id: 1\nevent: run\ndata: {"runId":"run_${turn}","requestId":"${id}"}\n\n`));
        const t0 = performance.now();
        let sent = 0;
        while (sent < totalTokens) {
          const due = Math.min(
            totalTokens,
            Math.floor(((performance.now() - t0) / 1000) * TOKENS_PER_SECOND),
          );
          for (; sent < due; sent++)
            c.enqueue(
              enc.encode(
                `id: ${sent + 2}\nevent: message\ndata: {"content":"tok${sent} ","timestamp":"2026-11-23T00:00:00.000Z"}\n\n`,
              ),
            );
          await sleep(2);
        }
        c.enqueue(enc.encode(`id: ${totalTokens + 2}\nevent: done\ndata: {"status":"finished"}\n\n`));
        c.close();
      },
    });
    return new Response(body, {
      headers: { 'content-type': 'text/event-stream', 'x-request-id': id, 'x-run-id': `run_${turn}` },
    });
  });
  const server = setupServer(streamHandler, ...oracle);
  server.listen({ onUnhandledRequest: 'bypass' });

  async function run(mode: 'batched' | 'immediate') {
    let renders = 0;
    /** Renders that published new messages (streamed text), as against status and run changes. */
    let messageRenders = 0;
    let lastMessages: unknown;
    let lastRun: unknown;
    let lastStatus = '';
    let frames = 0;
    let counting = false;
    const tick = (): void => {
      if (!counting) return;
      frames++;
      requestAnimationFrame(tick);
    };
    let status = 'ready';
    let chat: ReturnType<typeof sdk.useChat> | undefined;
    function Chat() {
      chat = sdk.useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'bench',
        onPaymentRequiredError: () => undefined,
        streamingMode: mode,
      });
      status = chat.status;
      if (status === 'streaming') {
        renders++;
        // A render for new text only; a status or run change publishes the pending text with it, at once.
        const metaChanged = chat.run !== lastRun || status !== lastStatus;
        if (chat.messages !== lastMessages && !metaChanged) messageRenders++;
      }
      lastMessages = chat.messages;
      lastRun = chat.run;
      lastStatus = status;
      const last = chat.messages.at(-1);
      return React.createElement(
        'p',
        null,
        `${chat.messages.length} ${typeof last?.content === 'string' ? last.content.length : 0}`,
      );
    }
    gc();
    const heapEmpty = process.memoryUsage().heapUsed;
    const container = document.createElement('div');
    const root = createRoot(container);
    root.render(
      React.createElement(
        sdk.OraclesProvider,
        {
          initialWallet: {
            address: 'ixo1',
            did: 'did:key:z6MkBench',
            matrix: { accessToken: '', homeServer: '' },
          },
          transactSignX: () => Promise.resolve(''),
          createDelegation: () => Promise.resolve({ serialized: 'd', expiresAt: Date.now() + 3_600_000 }),
          chainRestUrl: oracle.control.chainRestUrl,
        },
        React.createElement(Chat),
      ),
    );
    while (!chat || chat.messages.length < THREAD) await sleep(10);
    await sleep(100);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    chat.sendMessage('stream please');
    while (status !== 'streaming') await sleep(1);
    counting = true;
    requestAnimationFrame(tick);
    while (status === 'streaming') await sleep(5);
    counting = false;
    const seconds = (performance.now() - t0) / 1000;
    await sleep(50);
    gc();
    const heapAfter = process.memoryUsage().heapUsed;
    const messages = chat.messages;
    const answer = messages.at(-1);
    const answerLength = typeof answer?.content === 'string' ? answer.content.length : 0;
    root.unmount();
    return {
      renders,
      messageRenders,
      frames,
      seconds,
      heapEmpty,
      heapBefore,
      heapAfter,
      answerLength,
      count: messages.length,
    };
  }

  /**
   * Mounts a chat on an empty session until its socket is up, then unmounts: the code loaded once per page
   * (socket.io-client, React's and the library's first renders) is not counted as the thread's heap.
   */
  async function warmUp(): Promise<void> {
    let connected = false;
    function Warm() {
      connected = sdk.useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'warm',
        onPaymentRequiredError: () => undefined,
      }).isRealTimeConnected;
      return null;
    }
    const root = createRoot(document.createElement('div'));
    root.render(
      React.createElement(
        sdk.OraclesProvider,
        {
          initialWallet: {
            address: 'ixo1',
            did: 'did:key:z6MkWarm',
            matrix: { accessToken: '', homeServer: '' },
          },
          transactSignX: () => Promise.resolve(''),
          createDelegation: () => Promise.resolve({ serialized: 'd', expiresAt: Date.now() + 3_600_000 }),
          chainRestUrl: oracle.control.chainRestUrl,
        },
        React.createElement(Warm),
      ),
    );
    while (!connected) await sleep(10);
    root.unmount();
  }
  await warmUp();

  const HEAP_TARGET = 3 * 1024 * 1024;
  for (const mode of ['batched', 'immediate'] as const) {
    const r = await run(mode);
    const perFrame = r.messageRenders / Math.max(1, r.frames);
    const target = mode === 'batched' ? ` — target ≤ 1 per frame: ${perFrame <= 1 ? 'met' : 'MISSED'}` : '';
    console.log(
      `${mode.padEnd(9)} ${totalTokens} tokens at ${TOKENS_PER_SECOND}/s in ${r.seconds.toFixed(2)} s: ${r.renders} renders while streaming (${r.renders - r.messageRenders} of them at a status or run change, published at once) = ${(r.renders / r.seconds).toFixed(0)} renders/s; ${r.frames} animation frames, ${perFrame.toFixed(2)} text-only renders per frame${target}`,
    );
    const thread = r.heapBefore - r.heapEmpty;
    if (mode === 'batched') {
      figures.push(
        {
          id: 'sdk.batched.rendersPerFrame',
          label: 'SDK text renders per animation frame at 500 tokens/s (batched)',
          value: perFrame,
          unit: 'per frame',
          better: 'lower',
        },
        {
          id: 'sdk.thread5000.heapMb',
          label: 'SDK heap of a 5,000-message thread',
          value: thread / 1024 / 1024,
          unit: 'MB',
          better: 'lower',
        },
      );
    }
    console.log(
      `          heap: the ${THREAD}-message thread took +${mb(thread)}${mode === 'batched' ? ` — target ≤ +3 MB: ${thread <= HEAP_TARGET ? 'met' : 'MISSED'}` : ''}; streaming the answer into it +${mb(r.heapAfter - r.heapBefore)} (the answer itself is ${r.answerLength} chars; ${r.count} messages)`,
    );
  }
  server.close();
  const out = process.env['BENCH_JSON_OUT'];
  if (out)
    (await import('node:fs')).writeFileSync(out, `${JSON.stringify({ bench: 'sdk', figures }, null, 2)}\n`);
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
