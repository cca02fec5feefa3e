import { webcrypto } from 'node:crypto';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { WebSocket } from 'ws';

// vitest's jsdom environment puts jsdom's own Uint8Array and ArrayBuffer on the global object, another realm
// than Node's: Web Crypto (under ucanto's signer) then refuses their buffers. Node's own, as vitest's vm
// environments do; the wallet signs with Node's Web Crypto, as a browser's would.
const NodeUint8Array = Object.getPrototypeOf(Buffer.prototype).constructor as Uint8ArrayConstructor;
Object.assign(globalThis, {
  Uint8Array: NodeUint8Array,
  ArrayBuffer: new NodeUint8Array(0).buffer.constructor,
});
if (typeof self === 'object' && self.crypto !== (webcrypto as Crypto)) {
  Object.defineProperty(self, 'crypto', { value: webcrypto, configurable: true });
}

// The global WebSocket here is undici's, which dispatches jsdom's Event (the global) on Node's EventTarget and
// throws; the SDK's socket opens `globalThis.WebSocket` when it connects: the `ws` client, a real WebSocket.
Object.assign(globalThis, { WebSocket });

// Turns of the real service take a few hundred milliseconds, more on a loaded machine: waitFor gives them 10 s.
configure({ asyncUtilTimeout: 10_000 });

// React trees of one test are unmounted before the next (their sockets and streams close with them).
afterEach(() => {
  cleanup();
  // The SDK keeps delegations in localStorage, as in a browser: each test starts as a new page would.
  globalThis.localStorage?.clear();
});
