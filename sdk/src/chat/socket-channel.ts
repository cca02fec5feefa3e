import type { WebSocket as WebSocketTransport } from 'engine.io-client';
import type { io as ioFunction, Socket } from 'socket.io-client';
import type { ClientEventName, ClientEventPayload } from '../../../contracts/events.js';
import type { ReauthorizationReason } from '../auth/token-cache.js';
import type { OracleHttp } from '../http/oracle-http.js';
import { OracleRequestError } from '../http/oracle-request-error.js';
import { backoffDelay, type BackoffOptions } from '../util/backoff.js';

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

/**
 * Which token a handshake after a refusal must carry anew: `delegation` (the server said it has none, an
 * expired one, or one it cannot accept: minted again, which may ask the wallet), `invocation` (the server said
 * a token expired: only the short-lived invocation is minted again), or none (the same tokens).
 */
export type AuthRefresh = 'delegation' | 'invocation' | undefined;

/** Refusals after which the delegation is minted again (once in a row): it is missing, expired or not accepted. */
const DELEGATION_REFUSALS: ReadonlySet<string> = new Set([
  'delegation_missing',
  'delegation_expired',
  'auth_missing',
  'auth_malformed',
  'auth_bad_signature',
  'auth_unknown_issuer',
  'auth_wrong_audience',
  'auth_wrong_capability',
  'auth_issuer_mismatch',
  'auth_not_yet_valid',
  'auth_lifetime_too_long',
]);

/** Refusals that no new token changes: the chat's session or room is gone, or the handshake is malformed. */
const FINAL_REFUSALS: ReadonlySet<string> = new Set(['session_not_found', 'room_not_found', 'bad_request']);

/** How many times in a row a handshake the server could not check (`unavailable`) is tried again. */
export const UNAVAILABLE_RETRIES = 6;

/** How a dropped connection (or one that could not be opened) is tried again: for ever, by the SDK's backoff. */
const RECONNECT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 5000 };

/** What `onReauthorize` is told when a refused handshake asks for a new delegation. */
const reauthorizationReason = (code: string | undefined): ReauthorizationReason =>
  code === 'delegation_missing' || code === 'delegation_expired' || code === 'auth_expired'
    ? code
    : 'expired';

/**
 * The handshake's tokens from the oracle's HTTP client: only what the server's refusal asked for is minted
 * again (a decline throws, and the channel reports it).
 */
export function handshakeAuth(http: OracleHttp): SocketChannelOptions['auth'] {
  return async (refresh, code) => {
    if (refresh === 'delegation') await http.renewDelegation(undefined, reauthorizationReason(code));
    if (refresh === 'invocation') await http.renewInvocation();
    const headers = await http.authHeaders();
    const auth: SocketAuth = { ucanDelegation: headers['x-ucan-delegation'] ?? '' };
    const bearer = headers['authorization'];
    if (bearer) auth.invocation = bearer.replace(/^Bearer /, '');
    return auth;
  };
}

export interface SocketChannelOptions {
  wsUrl: string;
  sessionId: string;
  userDid: string;
  /**
   * Called at every (re)connect, so each handshake carries current tokens; `refresh` says which to mint anew,
   * `code` the server's refusal that asked for it.
   */
  auth: (refresh: AuthRefresh, code?: string) => Promise<SocketAuth>;
  onEvent: (name: string, payload: unknown) => void;
  onConnectedChange: (connected: boolean) => void;
  /**
   * The channel gave up: the server refused the handshake for a reason no retry changes (the session or room
   * is gone, a fresh token was refused again, the wallet declined, the service stayed unavailable). The error
   * names the step, the URL and the server's code. Nothing is retried after it.
   */
  onRefused?: (error: Error) => void;
  /** Base delay of the backoff after a refused handshake, ms (default 1000). */
  retryBaseMs?: number;
  /** The backoff after a dropped connection, or one that could not be opened (default {@link RECONNECT_BACKOFF}). */
  reconnect?: BackoffOptions;
}

/**
 * The chat session's socket.io channel (namespace `/`, query `{sessionId, userDid}`, auth of spec §5 C3).
 * Every wait before trying again is the SDK's backoff (util/backoff.ts), not socket.io's: a dropped
 * connection, or one that could not be opened, is tried again for ever by {@link RECONNECT_BACKOFF} (the count
 * starts again once connected); a server's `disconnect` of the socket is final, as in socket.io. A refused
 * handshake (`connect_error` from the
 * server, which socket.io does not retry) is handled by the server's code, so that the wallet is asked only
 * when a delegation is the problem:
 * 1. {@link DELEGATION_REFUSALS}: the next handshake carries a newly minted delegation; refused again for
 *    such a code, the channel gives up (no prompt loop).
 * 2. `auth_expired`: the next handshake carries a newly minted invocation (no wallet prompt); once in a row.
 * 3. `session_not_found`, `room_not_found`, `bad_request`: it gives up at once.
 * 4. `unavailable`, or a refusal without a code: tried again with the same tokens after the SDK's backoff,
 *    {@link UNAVAILABLE_RETRIES} times in a row, then it gives up.
 * Giving up calls `onRefused` with an {@link OracleRequestError} (step `socket handshake`, the server's code).
 * Tokens that cannot be had (the wallet declined) give up at once with that error.
 */
export class SocketChannel {
  readonly #opts: SocketChannelOptions;
  #socket: Socket | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Refusals in a row that were retried with the same tokens (`unavailable`). */
  #refused = 0;
  /** Connections in a row that dropped or could not be opened. */
  #dropped = 0;
  #closed = false;
  #refresh: AuthRefresh = undefined;
  #refreshCode: string | undefined = undefined;
  /** What was minted anew for the handshake just refused (a second refusal for it is final). */
  #refreshed: AuthRefresh = undefined;
  /** Why the tokens of the last handshake could not be had. */
  #authError: unknown = undefined;
  /** Emits made before socket.io has loaded. */
  readonly #pending: [string, unknown][] = [];

  constructor(opts: SocketChannelOptions) {
    this.#opts = opts;
  }

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
    const opts = this.#opts;
    const socket = io(opts.wsUrl, {
      path: '/socket.io',
      // Only WebSocket: the oracle's socket is a WebSocket endpoint (as the reference client uses it).
      transports: typeof globalThis.WebSocket === 'function' ? [LateBoundWebSocket] : ['websocket'],
      query: { sessionId: opts.sessionId, userDid: opts.userDid },
      auth: (cb) => {
        const refresh = this.#refresh;
        const code = this.#refreshCode;
        this.#refresh = undefined;
        this.#refreshCode = undefined;
        this.#refreshed = refresh;
        this.#authError = undefined;
        opts.auth(refresh, code).then(
          (auth) => cb({ ...auth }),
          (err: unknown) => {
            // No tokens (the wallet declined, the oracle is unreachable): the handshake goes without, and its
            // refusal ends the channel with this error.
            this.#authError = err;
            cb({});
          },
        );
      },
      // Reconnects are this channel's (the SDK's backoff), not socket.io's own.
      reconnection: false,
      autoConnect: false,
    });
    socket.on('connect', () => {
      this.#refused = 0;
      this.#dropped = 0;
      this.#refreshed = undefined;
      opts.onConnectedChange(true);
    });
    socket.on('disconnect', () => {
      opts.onConnectedChange(false);
      // The server's disconnect (and our own close) is final; a transport that closed or timed out is not.
      if (socket.active && !this.#closed) this.#dropAndReconnect(socket);
    });
    socket.on('connect_error', (err: Error & { data?: unknown }) => {
      opts.onConnectedChange(false);
      if (this.#closed) return;
      // socket.active is true when the connection could not be opened, false when the server refused the
      // handshake.
      if (socket.active) this.#dropAndReconnect(socket);
      else this.#onRefused(socket, err);
    });
    socket.onAny((name: string, payload: unknown) => opts.onEvent(name, payload));
    return socket;
  }

  #onRefused(socket: Socket, err: Error & { data?: unknown }): void {
    const data = (typeof err.data === 'object' && err.data !== null ? err.data : {}) as {
      code?: unknown;
      statusCode?: unknown;
    };
    const code = typeof data.code === 'string' ? data.code : undefined;
    const giveUp = (cause: unknown = err): void => {
      this.close();
      this.#opts.onRefused?.(
        cause instanceof Error && !(cause === err)
          ? cause
          : new OracleRequestError(
              `The chat's socket at ${this.#opts.wsUrl} was refused${code ? ` (${code})` : ''}: ${err.message}`,
              {
                status: typeof data.statusCode === 'number' ? data.statusCode : 0,
                ...(code ? { code } : {}),
                step: 'socket handshake',
                cause: err,
              },
            ),
      );
    };
    if (this.#authError !== undefined) return giveUp(this.#authError);
    if (code !== undefined && FINAL_REFUSALS.has(code)) return giveUp();
    if (code !== undefined && DELEGATION_REFUSALS.has(code)) {
      if (this.#refreshed === 'delegation') return giveUp();
      return this.#retry(socket, 'delegation', 0, code);
    }
    if (code === 'auth_expired') {
      // A new invocation first; refused as expired again, the delegation is what expired (once more, then no).
      if (this.#refreshed === 'delegation') return giveUp();
      return this.#retry(socket, this.#refreshed === 'invocation' ? 'delegation' : 'invocation', 0, code);
    }
    if (this.#refused >= UNAVAILABLE_RETRIES) return giveUp();
    this.#retry(socket, undefined, backoffDelay(this.#refused++, { baseMs: this.#opts.retryBaseMs ?? 1000 }));
  }

  #dropAndReconnect(socket: Socket): void {
    if (this.#retryTimer !== undefined) return;
    this.#retry(socket, undefined, backoffDelay(this.#dropped++, this.#opts.reconnect ?? RECONNECT_BACKOFF));
  }

  #retry(socket: Socket, refresh: AuthRefresh, delayMs: number, code?: string): void {
    this.#refresh = refresh;
    this.#refreshCode = code;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (!this.#closed) socket.connect();
    }, delayMs);
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
