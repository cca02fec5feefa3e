import type { Server as HttpServer } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import { Server, type Socket } from 'socket.io';
import {
  ActionCallResultEvent,
  handshakeRefusalStatus,
  ToolResultEvent,
  type ServerEventPayload,
  type SocketServerEventName,
} from '../../../contracts/events.js';
import type { Logger } from '../../logger.js';
import { duplicateSubscriber } from '../../redis-subscriber.js';
import { redisOutage } from '../../stores/outage-notice.js';
import { API_SECURITY_HEADERS } from '../../security-headers.js';
import { AuthError } from '../auth/auth-error.js';
import { authenticate } from '../auth/authenticate.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import type { FrontendBridge, FrontendCall } from './frontend-bridge.js';
import type { RoomStore } from '../store/rooms.js';
import type { SessionStore } from '../store/sessions.js';

/** What a socket is, once its handshake passed. */
interface SocketData {
  userDid: string;
  sessionId: string;
  /** The room of the session, if it has one. */
  roomId: string | null;
}

/**
 * The socket.io room of one user's sockets in one room's sessions: what a removal from the room disconnects.
 * JSON, so no room id or DID can make another pair's name (session ids, the other rooms, never start with `[`).
 */
function memberChannel(roomId: string, userDid: string): string {
  return JSON.stringify([roomId, userDid]);
}

/** The session's socket.io channel: browser tools, actions, tool calls and components to the user's tabs. */
export interface OracleSockets {
  attach(http: HttpServer): void;
  /** Emits an event to every socket of the session (on any instance, with Redis). */
  emitToSession<N extends SocketServerEventName>(
    sessionId: string,
    event: N,
    payload: ServerEventPayload<N>,
  ): void;
  /** Sends a browser tool call or an action call to the session's sockets. */
  sendFrontendCall(call: FrontendCall): void;
  /**
   * `userDid` is no longer a member of `roomId`: disconnects their sockets of that room's sessions, on every
   * instance (with Redis, through the adapter). Their other sockets stay.
   */
  leaveRoom(roomId: string, userDid: string): void;
  close(): Promise<void>;
}

/**
 * Gives every promise `methods` of `client` return a rejection handler (`onError`), for callers that drop the
 * promise. The promise is returned as it is: a caller that awaits it still sees the rejection.
 */
function handleRejections(client: Redis, methods: string[], onError: (err: unknown) => void): void {
  const target = client as unknown as Record<string, unknown>;
  for (const name of methods) {
    const original = target[name];
    if (typeof original !== 'function') continue;
    target[name] = function (this: unknown, ...args: unknown[]): unknown {
      const result: unknown = Reflect.apply(original, this, args);
      if (result instanceof Promise) result.catch(onError);
      return result;
    };
  }
}

/** Per HTTP server: closes the transports of its sockets (see {@link drainSockets}). */
const socketDrains = new WeakMap<HttpServer, () => void>();

/**
 * The HTTP server is draining: closes the transport of every socket.io client on it. Clients see a transport
 * close (not a server-side disconnect) and reconnect by themselves, to the successor or another instance, and
 * re-join their session's room; a server-side `disconnect()` would tell them not to come back.
 */
export function drainSockets(http: HttpServer): void {
  socketDrains.get(http)?.();
}

/**
 * socket.io on the service's HTTP server (namespace `/`, path `/socket.io`). The handshake carries
 * `auth: {invocation?, ucanDelegation}` and `query: {sessionId, userDid}`: the tokens are verified like any
 * request's, `userDid` must be their issuer and the session theirs, or the handshake is refused
 * (`connect_error` with `data.code`). An accepted socket joins its session's room and, for a session in a
 * room, its user's channel of that room (what {@link OracleSockets.leaveRoom} disconnects). With Redis, the
 * Redis adapter carries room events, and those disconnections, between instances.
 */
export function createOracleSockets(deps: {
  verifier: TokenVerifier;
  sessions: SessionStore;
  rooms: RoomStore;
  bridge: () => FrontendBridge;
  corsOrigins: string[];
  redis: Redis | undefined;
  /** The adapter's channel prefix (socket.io's default is `socket.io`). */
  redisKey: string;
  logger: Logger;
}): OracleSockets {
  let io: Server | undefined;
  const adapterClients: Redis[] = [];

  const refuse = (code: string, message: string): Error & { data: unknown } =>
    Object.assign(new Error(message), {
      data: { code, statusCode: handshakeRefusalStatus(code) },
    });

  const onConnection = (socket: Socket): void => {
    const { userDid, sessionId, roomId } = socket.data as SocketData;
    void socket.join(roomId === null ? sessionId : [sessionId, memberChannel(roomId, userDid)]);
    socket.emit('connected', {
      message: 'Connected to the oracle',
      sessionId,
      timestamp: new Date().toISOString(),
    });
    const answer = (toolCallId: string, result: unknown, error: string | undefined): void => {
      deps
        .bridge()
        .answer({ type: 'frontend_result', toolCallId, userDid, sessionId, result, error })
        .catch((err: unknown) => deps.logger.warn({ err }, 'socket: a result could not be forwarded'));
    };
    socket.on('tool_result', (payload: unknown) => {
      const parsed = ToolResultEvent.safeParse(payload);
      if (parsed.success) answer(parsed.data.toolCallId, parsed.data.result, parsed.data.error);
    });
    socket.on('action_call_result', (payload: unknown) => {
      const parsed = ActionCallResultEvent.safeParse(payload);
      if (parsed.success) answer(parsed.data.toolCallId, parsed.data.result, parsed.data.error);
    });
  };

  return {
    attach(http) {
      socketDrains.set(http, () => io?.engine.close());
      io = new Server(http, {
        serveClient: false,
        cors: { origin: deps.corsOrigins.includes('*') ? '*' : deps.corsOrigins },
        // Results of browser tools may be large (page contents): 2 MB.
        maxHttpBufferSize: 2 * 1024 * 1024,
      });
      // engine.io answers its own HTTP requests (long-polling, the handshake): the headers of every answer too.
      io.engine.on('headers', (headers: Record<string, string>) => {
        for (const [name, value] of API_SECURITY_HEADERS) headers[name] = value;
      });
      if (deps.redis) {
        const pub = deps.redis.duplicate({ enableOfflineQueue: true });
        const sub = duplicateSubscriber(deps.redis);
        pub.on('error', () => undefined);
        // The adapter never awaits these commands: while Redis is down each would be an unhandled rejection,
        // which ends the process. A room event lost that way is a browser call that times out (a tool error).
        const outage = redisOutage(deps.redis, deps.logger);
        const warn = (err: unknown): void => outage.failed(err);
        handleRejections(pub, ['publish'], warn);
        handleRejections(sub, ['subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'], warn);
        adapterClients.push(pub, sub);
        io.adapter(createAdapter(pub, sub, { key: deps.redisKey }));
      }
      io.use((socket, next) => {
        const auth = (socket.handshake.auth ?? {}) as { invocation?: unknown; ucanDelegation?: unknown };
        const query = socket.handshake.query;
        const sessionId = typeof query['sessionId'] === 'string' ? query['sessionId'] : undefined;
        const userDid = typeof query['userDid'] === 'string' ? query['userDid'] : undefined;
        const tokens = {
          invocation: typeof auth.invocation === 'string' && auth.invocation ? auth.invocation : undefined,
          delegation:
            typeof auth.ucanDelegation === 'string' && auth.ucanDelegation ? auth.ucanDelegation : undefined,
        };
        (async () => {
          if (!sessionId || !userDid)
            throw refuse('bad_request', 'The handshake needs query sessionId and userDid.');
          const caller = await authenticate(tokens, deps.verifier);
          if (caller.userDid !== userDid) throw new AuthError('auth_issuer_mismatch');
          const session = await deps.sessions.owned(userDid, sessionId);
          if (!session) throw refuse('session_not_found', 'Chat session not found.');
          // A session in a room the caller has left (or was removed from) carries that room's events: members only.
          if (session.room_id !== null && !(await deps.rooms.role(session.room_id, userDid)))
            throw refuse('room_not_found', 'Room not found.');
          socket.data = { userDid, sessionId, roomId: session.room_id } satisfies SocketData;
        })().then(
          () => next(),
          (err: unknown) => {
            if (err instanceof AuthError) return next(refuse(err.code, err.message));
            if (err instanceof Error && 'data' in err) return next(err);
            deps.logger.warn({ err }, 'socket: handshake failed');
            next(refuse('unavailable', 'The service could not check the handshake; try again.'));
          },
        );
      });
      io.on('connection', onConnection);
    },
    emitToSession(sessionId, event, payload) {
      io?.to(sessionId).emit(event, payload);
    },
    sendFrontendCall(call) {
      const ref = {
        sessionId: call.sessionId,
        requestId: call.requestId,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
      };
      if (call.kind === 'browser_tool')
        io?.to(call.sessionId).emit('browser_tool_call', { ...ref, args: call.args });
      else io?.to(call.sessionId).emit('action_call', { ...ref, args: call.args, status: 'isRunning' });
    },
    leaveRoom(roomId, userDid) {
      io?.in(memberChannel(roomId, userDid)).disconnectSockets();
    },
    async close() {
      if (io) {
        const server = io;
        io = undefined;
        // Local sockets only: a broadcast through the adapter would outlive its Redis clients.
        server.local.disconnectSockets(true);
        // Not adapter.close(): its unsubscribe commands are not awaited and would be cut off by the quit below.
        server.engine.close();
      }
      await Promise.all(adapterClients.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
