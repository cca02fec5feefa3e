// Imports one SDK entry in plain Node with traps on the browser globals, and prints what it touched.
// Usage: node --import tsx import-probe.ts <module path>
const BROWSER_GLOBALS = [
  'window',
  'document',
  'navigator',
  'location',
  'localStorage',
  'sessionStorage',
  'self',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'WebSocket',
  'XMLHttpRequest',
  'HTMLElement',
  'Worker',
  'RTCPeerConnection',
  'MediaStream',
  'indexedDB',
];
const touched = new Set();
for (const name of BROWSER_GLOBALS) {
  if (name in globalThis) continue; // Node's own (e.g. navigator in newer Node): not a browser trap
  Object.defineProperty(globalThis, name, {
    configurable: true,
    get() {
      // TanStack Query's `isServer` is `typeof window === 'undefined'`: a feature test, not a use.
      if (/node_modules\/@tanstack\/query-core\//.test(new Error().stack ?? '')) return undefined;
      touched.add(name);
      return undefined;
    },
  });
}
const target = new URL(process.argv[2] ?? '', `file://${process.cwd()}/`).href;
try {
  const mod = (await import(target)) as Record<string, unknown>;
  process.stdout.write(
    JSON.stringify({ ok: true, exports: Object.keys(mod).sort(), touched: [...touched].sort() }),
  );
} catch (e) {
  process.stdout.write(
    JSON.stringify({
      ok: false,
      error: e instanceof Error ? String(e.stack) : String(e),
      touched: [...touched].sort(),
    }),
  );
}
