import type { WebSocket as WebSocketTransport } from 'engine.io-client';
import type { io as ioFunction, Socket } from 'socket.io-client';
import type { ClientEventName, ClientEventPayload } from '../../../contracts/events.js';

type TransportClass = typeof WebSocketTransport;
type Io = typeof ioFunction;

/**
 * socket.io-client is loaded on first connect (not at import: importing the SDK touches no browser global,
 * and apps that never open a chat never load it).
 *
 * engine.io's browser WebSocket transport reads `globalThis.WebSocket` once, when its module loads. The
 * subclass made here reads it when a connection opens, so a WebSocket installed later (msw's interceptor in
 * tests and in the demo, a polyfill) is the one used.
 */
async function loadSocketIo(): Promise<{
  io: Io;
  LateBoundWebSocket: TransportClass;
}> {
  const [{ io }, { WebSocket: BrowserWebSocketTransport }] = await Promise.all([
    import('socket.io-client'),
    import('engine.io-client'),
  ]);
  class LateBoundWebSocket extends BrowserWebSocketTransport {
    override createSocket(uri: string, protocols: string | string[] | undefined): WebSocket {
      return new globalThis.WebSocket(uri, protocols);
    }
  }
  return { io, LateBoundWebSocket };
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
  #socket: Socket | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #refused = 0;
  #closed = false;
  #refresh = false;
  /** Emits made before socket.io has loaded. */
  readonly #pending: [string, unknown][] = [];

  constructor(private readonly opts: SocketChannelOptions) {}

  /** Loads socket.io-client (once) and connects. */
  connect(): void {
    void loadSocketIo().then(({ io, LateBoundWebSocket }) => {
      if (this.#closed) return;
      this.#socket = this.#create(io, LateBoundWebSocket);
      for (const [name, payload] of this.#pending.splice(0)) this.#socket.emit(name, payload);
      this.#socket.connect();
    });
  }

  #create(io: Io, LateBoundWebSocket: TransportClass): Socket {
    const { opts } = this;
    const socket = io(opts.wsUrl, {
      path: '/socket.io',
      // Only WebSocket: the oracle's socket is a WebSocket endpoint (as the reference client uses it).
      transports: typeof globalThis.WebSocket === 'function' ? [LateBoundWebSocket] : ['websocket'],
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
    socket.on('connect', () => {
      this.#refused = 0;
      opts.onConnectedChange(true);
    });
    socket.on('disconnect', () => opts.onConnectedChange(false));
    socket.on('connect_error', () => {
      opts.onConnectedChange(false);
      // socket.active is false when the server refused the handshake: socket.io will not retry by itself.
      if (socket.active || this.#closed) return;
      const base = opts.retryBaseMs ?? 1000;
      const delay = Math.min(30_000, base * 2 ** this.#refused) * (0.8 + Math.random() * 0.4);
      this.#refused++;
      this.#refresh = true;
      this.#retryTimer = setTimeout(() => {
        if (!this.#closed) socket.connect();
      }, delay);
    });
    socket.onAny((name: string, payload: unknown) => opts.onEvent(name, payload));
    return socket;
  }

  get connected(): boolean {
    return this.#socket?.connected ?? false;
  }

  /** Sends a client event (buffered by socket.io while disconnected). */
  emit<N extends ClientEventName>(name: N, payload: ClientEventPayload<N>): void {
    if (this.#socket) this.#socket.emit(name, payload);
    else this.#pending.push([name, payload]);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    this.#socket?.removeAllListeners();
    this.#socket?.disconnect();
  }
}
