import { WebSocket as BrowserWebSocketTransport } from 'engine.io-client';
import { io, type Socket } from 'socket.io-client';
import type { ClientEventName, ClientEventPayload } from '../../../contracts/events.js';

/**
 * engine.io's browser WebSocket transport reads `globalThis.WebSocket` once, when the module loads. This one
 * reads it when a connection opens, so a WebSocket installed later (msw's interceptor in tests and in the
 * demo, a polyfill) is the one used.
 */
class LateBoundWebSocket extends BrowserWebSocketTransport {
  override createSocket(uri: string, protocols: string | string[] | undefined): WebSocket {
    return new globalThis.WebSocket(uri, protocols);
  }
}

/** The socket.io handshake's `auth` (spec §5 C3). */
export interface SocketAuth {
  invocation?: string;
  ucanDelegation: string;
}

export interface SocketChannelOptions {
  wsUrl: string;
  sessionId: string;
  userDid: string;
  /** Called at every (re)connect, so each handshake carries fresh tokens. */
  auth: (refresh: boolean) => Promise<SocketAuth>;
  onEvent: (name: string, payload: unknown) => void;
  onConnectedChange: (connected: boolean) => void;
  /** Base delay of the reconnect backoff after a refused handshake, ms. */
  retryBaseMs?: number;
}

/**
 * The chat session's socket.io channel (namespace `/`, query `{sessionId, userDid}`, auth of spec §5 C3).
 * Transport drops reconnect through socket.io's own backoff; a refused handshake (`connect_error` from the
 * server, which socket.io does not retry) reconnects here with exponential backoff and fresh tokens.
 */
export class SocketChannel {
  readonly #socket: Socket;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #refused = 0;
  #closed = false;
  #refresh = false;

  constructor(private readonly opts: SocketChannelOptions) {
    const hasGlobalWebSocket = typeof globalThis.WebSocket === 'function';
    this.#socket = io(opts.wsUrl, {
      path: '/socket.io',
      // Only WebSocket: the oracle's socket is a WebSocket endpoint (as the reference client uses it).
      transports: hasGlobalWebSocket ? [LateBoundWebSocket] : ['websocket'],
      query: { sessionId: opts.sessionId, userDid: opts.userDid },
      auth: (cb) => {
        const refresh = this.#refresh;
        this.#refresh = false;
        opts.auth(refresh).then(
          (auth) => cb({ ...auth }),
          () => cb({}),
        );
      },
      reconnectionDelay: 500,
      reconnectionDelayMax: 5000,
      autoConnect: false,
    });
    this.#socket.on('connect', () => {
      this.#refused = 0;
      opts.onConnectedChange(true);
    });
    this.#socket.on('disconnect', () => opts.onConnectedChange(false));
    this.#socket.on('connect_error', () => {
      opts.onConnectedChange(false);
      // socket.active is false when the server refused the handshake: socket.io will not retry by itself.
      if (this.#socket.active || this.#closed) return;
      const base = opts.retryBaseMs ?? 1000;
      const delay = Math.min(30_000, base * 2 ** this.#refused) * (0.8 + Math.random() * 0.4);
      this.#refused++;
      this.#refresh = true;
      this.#retryTimer = setTimeout(() => {
        if (!this.#closed) this.#socket.connect();
      }, delay);
    });
    this.#socket.onAny((name: string, payload: unknown) => opts.onEvent(name, payload));
  }

  connect(): void {
    this.#socket.connect();
  }

  get connected(): boolean {
    return this.#socket.connected;
  }

  /** Sends a client event (buffered by socket.io while disconnected). */
  emit<N extends ClientEventName>(name: N, payload: ClientEventPayload<N>): void {
    this.#socket.emit(name, payload);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    this.#socket.removeAllListeners();
    this.#socket.disconnect();
  }
}
