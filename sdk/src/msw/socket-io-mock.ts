import type { WebSocketHandlerConnection } from 'msw';
import { handshakeRefusalStatus } from '../../../contracts/events.js';

type WebSocketClientConnectionProtocol = WebSocketHandlerConnection['client'];

/**
 * The server half of socket.io's wire protocol (Engine.IO v4 over WebSocket, namespace `/`, no binary), enough
 * for the SDK's channel: open, handshake with `auth` (accept or refuse with `connect_error`), events both
 * ways, and pings. Used over msw's `ws` API, so socket.io-client works against msw without a server.
 */
export class SocketIoMockClient {
  readonly query: URLSearchParams;
  auth: Record<string, unknown> | undefined;
  connected = false;
  #ping: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly raw: WebSocketClientConnectionProtocol,
    handlers: {
      onConnect: (client: SocketIoMockClient) => string | undefined;
      onEvent: (client: SocketIoMockClient, name: string, payload: unknown) => void;
      onClose: (client: SocketIoMockClient) => void;
    },
    pingIntervalMs = 25_000,
  ) {
    this.query = new URL(raw.url).searchParams;
    raw.send(
      '0' +
        JSON.stringify({
          sid: `mock-${Math.random().toString(36).slice(2)}`,
          upgrades: [],
          pingInterval: pingIntervalMs,
          pingTimeout: 20_000,
          maxPayload: 1_000_000,
        }),
    );
    this.#ping = setInterval(() => raw.send('2'), pingIntervalMs);
    (this.#ping as { unref?: () => void }).unref?.();
    raw.addEventListener('message', (event) => {
      const data = event.data;
      if (typeof data !== 'string') return;
      if (data.startsWith('40')) {
        this.auth = data.length > 2 ? (JSON.parse(data.slice(2)) as Record<string, unknown>) : undefined;
        const refusal = handlers.onConnect(this);
        if (refusal !== undefined) {
          // As the oracle refuses: a message, and `data` with the code and its HTTP status.
          raw.send('44' + JSON.stringify({ message: refusalMessage(refusal), data: refusalData(refusal) }));
          return;
        }
        this.connected = true;
        raw.send('40' + JSON.stringify({ sid: `mock-${Math.random().toString(36).slice(2)}` }));
        return;
      }
      if (data.startsWith('42')) {
        const body = data.slice(2).replace(/^\d+/, '');
        const [name, payload] = JSON.parse(body) as [string, unknown];
        handlers.onEvent(this, name, payload);
      }
    });
    raw.addEventListener('close', () => {
      clearInterval(this.#ping);
      this.connected = false;
      handlers.onClose(this);
    });
  }

  /** Sends an event with its raw payload (no wrapper), as the oracle does. */
  emit(name: string, payload: unknown): void {
    if (this.connected) this.raw.send('42' + JSON.stringify([name, payload]));
  }

  /** Closes the connection (the client reconnects with backoff). */
  drop(): void {
    clearInterval(this.#ping);
    this.connected = false;
    this.raw.close();
  }
}

/** The `data` the oracle gives a refused handshake: its code and that code's status (contracts/events.ts). */
function refusalData(code: string): { code: string; statusCode: number } {
  return { code, statusCode: handshakeRefusalStatus(code) };
}

/** The oracle's message for a refused handshake's code. */
function refusalMessage(code: string): string {
  const messages: Record<string, string> = {
    session_not_found: 'Chat session not found.',
    room_not_found: 'Room not found.',
    bad_request: 'The handshake needs query sessionId and userDid.',
    unavailable: 'The service could not check the handshake; try again.',
  };
  return messages[code] ?? `The handshake was refused (${code}).`;
}
