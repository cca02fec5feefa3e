import { randomUUID } from 'node:crypto';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import type { Request, Response, RequestHandler } from 'express';
import type { Router } from 'express';
import { oracleContract, type OracleRouteMetadata, type Price } from '../../../contracts/oracle.js';
import type { OracleServiceConfig } from '../config.js';
import { AuthError } from '../auth/auth-error.js';
import type { AuthContext } from '../auth/authenticate.js';
import { LIFETIME_SKEW_SECONDS, type TokenVerifier } from '../auth/token-verifier.js';
import type { OracleIdentity } from '../identity.js';
import type { TurnGuard } from '../runtime/plugin.js';
import type { ModelRegistry } from '../models/registry.js';
import { whenAnswered } from '../runs/abort-handshake.js';
import type { RunManager } from '../runs/run-manager.js';
import type { TurnRequest } from '../runs/turn.js';
import type { TurnLimits } from '../limits/turn-limits.js';
import type { OracleSockets } from '../socket/socket-server.js';
import type { DelegationStore } from '../store/delegations.js';
import type { RoomStore } from '../store/rooms.js';
import type { MessageStore } from '../store/messages.js';
import type { RunStore } from '../store/runs.js';
import { STORED_IN_FLIGHT, toRunInfo } from '../store/run-rows.js';
import { toPendingApproval } from '../store/approvals.js';
import type { ApprovalGate } from '../runtime/approval-gate.js';
import type { Admission } from '../limits/admission.js';
import { toChatSession, type SessionForTurn, type SessionStore } from '../store/sessions.js';
import { openEventStream } from './event-stream.js';
import { waitingAnswers } from './waiting-answers.js';
import { notFound, OracleHttpError, roomNotFound, runNotFound } from '../oracle-http-error.js';
import { oracleErrorHandler } from './oracle-error.js';

/** What the routes of the agent service work with. */
export interface OracleServices {
  config: OracleServiceConfig;
  identity: OracleIdentity;
  verifier: TokenVerifier;
  models: ModelRegistry;
  sessions: SessionStore;
  messages: MessageStore;
  runs: RunStore;
  delegations: DelegationStore;
  rooms: RoomStore;
  /** The session sockets (a removed room member's are disconnected). */
  sockets: Pick<OracleSockets, 'leaveRoom'>;
  /** Per-user limits: message size, turns per minute, turns in flight. */
  limits: TurnLimits;
  /** Whether the process can take a new turn now (database pool, Redis backlog, event loop). */
  admission: Pick<Admission, 'admit'>;
  manager: RunManager;
  /** Checks before a turn starts, in order (plugins add them). */
  turnGuards: TurnGuard[];
  /** The price of a turn (the credits plugin sets it; 0 otherwise). */
  price(): Price;
  /** Every authenticated route's middleware: the caller's tokens, then the plugins' (authenticated.ts). */
  authenticated: RequestHandler;
  /** Tool calls waiting for their user's approval. */
  approvals: Pick<ApprovalGate, 'decide' | 'pendingOf'>;
}

const s = initServer();

/** The caller of an authenticated route (the middleware ran; anything else is a programming error). */
function caller(res: Response): AuthContext {
  const auth = res.locals.auth;
  if (!auth) throw new AuthError('auth_missing');
  return auth;
}

/** The base URL clients reach this server at: PUBLIC_BASE_URL, else the request's own origin. */
export function publicBaseUrl(config: OracleServiceConfig, req: Request): string {
  return (
    config.PUBLIC_BASE_URL ?? `${req.protocol}://${req.get('host') ?? `localhost:${config.PORT}`}`
  ).replace(/\/+$/, '');
}

/**
 * The agent service's HTTP routes (contracts/oracle.ts), implemented on an Express router with the service's
 * auth middleware, validation errors answered as OracleError, and the streaming answers of chat turns.
 */
export function mountOracleRoutes(router: Router, svc: OracleServices): void {
  const { config, identity, sessions, messages, runs, manager } = svc;
  const heartbeatMs = config.ORACLE_SSE_HEARTBEAT_SECONDS * 1000;
  const view = { oracleName: identity.name, oracleEntityDid: identity.entityDid };

  const ownedSession = async (res: Response, sessionId: string) => {
    const row = await sessions.owned(caller(res).userDid, sessionId);
    if (!row) throw notFound();
    return row;
  };
  /** The room when the caller owns it or is a member; otherwise the same 404 as a room that does not exist. */
  const memberOf = async (res: Response, roomId: string) => {
    const role = await svc.rooms.role(roomId, caller(res).userDid);
    if (!role) throw roomNotFound();
    return role;
  };

  const impl = s.router(oracleContract, {
    config: ({ req }) =>
      Promise.resolve({
        status: 200,
        body: {
          did: identity.did,
          ...(identity.entityDid ? { entityDid: identity.entityDid } : {}),
          name: identity.name,
          model: svc.models.default,
          price: svc.price(),
          apiUrl: publicBaseUrl(config, req),
          wsUrl: publicBaseUrl(config, req),
        },
      }),

    models: () =>
      Promise.resolve({ status: 200, body: { models: svc.models.list(), default: svc.models.default } }),

    createSession: async ({ body, res }) => {
      if (body?.roomId !== undefined) await memberOf(res, body.roomId);
      const row = await sessions.create(caller(res).userDid, { title: body?.title, roomId: body?.roomId });
      return { status: 201, body: toChatSession(row, view) };
    },

    listSessions: async ({ query, res }) => {
      const { rows, total } = await sessions.list(caller(res).userDid, query.limit, query.offset);
      return { status: 200, body: { sessions: rows.map((r) => toChatSession(r, view)), total } };
    },

    deleteSession: async ({ params, res }) => {
      await ownedSession(res, params.sessionId);
      await manager.deleteSession(params.sessionId);
      await sessions.delete(caller(res).userDid, params.sessionId);
      messages.forget(params.sessionId);
      return { status: 200, body: { message: 'Session deleted.' } };
    },

    transcript: async ({ params, query, res }) => {
      await ownedSession(res, params.sessionId);
      const page = await messages.page(params.sessionId, query);
      if (page.hasNewer) return { status: 200, body: page };
      const waiting = await waitingAnswers(runs, svc.approvals, params.sessionId);
      return {
        status: 200,
        body: waiting.length === 0 ? page : { ...page, messages: [...page.messages, ...waiting] },
      };
    },

    history: async ({ params, res }) => {
      await ownedSession(res, params.sessionId);
      const stored = await messages.all(params.sessionId);
      const waiting = await waitingAnswers(runs, svc.approvals, params.sessionId);
      return { status: 200, body: { messages: [...stored, ...waiting] } };
    },

    currentRun: async ({ params, res }) => {
      await ownedSession(res, params.sessionId);
      const row = await runs.latest(params.sessionId);
      // No run yet is an answer, not an error: a chat asks on every mount.
      if (!row) return { status: 204, body: undefined };
      const run = toRunInfo(row);
      if (!STORED_IN_FLIGHT.includes(row.status)) return { status: 200, body: { run } };
      const pending = await svc.approvals.pendingOf(row.run_id);
      if (pending.length === 0) return { status: 200, body: { run } };
      return {
        status: 200,
        body: {
          run: { ...run, status: 'awaiting_approval', pendingApprovals: pending.map(toPendingApproval) },
        },
      };
    },

    decideToolApproval: async ({ params, body, res }) => {
      const { userDid } = caller(res);
      const result = await svc.approvals.decide(params.sessionId, params.toolCallId, userDid, body);
      if (result.kind === 'not_found') {
        throw new OracleHttpError(
          404,
          'approval_not_found',
          'No tool call of yours waits for approval under this id.',
        );
      }
      if (result.kind === 'already_decided') {
        throw new OracleHttpError(409, 'approval_already_decided', 'This tool call was decided already.');
      }
      const row = result.row;
      return {
        status: 200,
        body: {
          toolCallId: row.tool_call_id,
          approved: row.status === 'approved',
          decidedBy: row.decided_by ?? userDid,
          decidedAt: (row.decided_at ?? new Date()).toISOString(),
          ...(row.reason === null ? {} : { reason: row.reason }),
        },
      };
    },

    abort: async ({ body, res }) => {
      await ownedSession(res, body.sessionId);
      // The run stops and its partial answer is stored before this answer; its stream's `done` follows the
      // answer (the abort handshake, runs/abort-handshake.ts).
      const success = await manager.abortSession(body.sessionId, whenAnswered(res));
      return { status: 200, body: { success } };
    },

    send: async ({ params, body, res }) => {
      const { userDid, delegation } = caller(res);
      // Admission first, before the turn reads anything: over budget, 503 with Retry-After.
      svc.admission.admit();
      // The refusals come in this order: the session, the message's size, the rooms the turn reads and writes,
      // the model, then the limits (the question, the run and the delegation come after). The limits are asked
      // while the session is read (one round trip less before the turn starts); a turn refused for anything
      // before them gives back what they took, so it counts for nothing.
      const requestId = randomUUID();
      const slot = { sessionId: params.sessionId, requestId };
      const admitted = svc.limits.admit(userDid, slot).then(
        () => undefined,
        (err: unknown) => ({ refusal: err }),
      );
      let owned: SessionForTurn | undefined;
      let model: string;
      try {
        // The session with its runs in flight (the turn ends those first) and its thread, in one read.
        owned = await sessions.ownedForTurn(userDid, params.sessionId);
        if (!owned) throw notFound();
        svc.limits.checkMessage(body.message);
        const named = body.metadata?.['roomId'];
        if (typeof named === 'string' && named.length > 0) await memberOf(res, named);
        if (owned.session.room_id !== null) await memberOf(res, owned.session.room_id);
        model = body.model ?? svc.models.default;
        if (!svc.models.get(model)) {
          throw new OracleHttpError(400, 'unknown_model', `Unknown model ${model}; see GET /models.`);
        }
      } catch (err) {
        // Refused by the limits as well, the turn was counted all the same (its slot was not taken: freeing it
        // changes nothing).
        await admitted;
        await svc.limits.unadmit(userDid, slot);
        throw err;
      }
      const limited = await admitted;
      if (limited) throw limited.refusal;
      const { session, runsInFlight, thread } = owned;
      // A turn refused after it took its run slot gives the slot back once the refusal is sent; a started one
      // frees it when its run ends.
      const freeSlot = (): void => void svc.limits.freeRun(userDid, slot);
      res.once('close', freeSlot);
      // A turn acts for the user: it needs their delegation, sent now or stored before (spec §5 C4).
      if (delegation) {
        await svc.delegations.put(delegation);
      } else {
        const stored = await svc.delegations.get(userDid);
        if (!stored) throw new AuthError('delegation_missing');
        // A delegation stored before tokens had a maximum lifetime (or with none) counts as expired when it
        // outlives that maximum: the SDK then mints one within it.
        const latest =
          Date.now() + (svc.config.ORACLE_DELEGATION_MAX_LIFETIME_S + LIFETIME_SKEW_SECONDS) * 1000;
        const expiresAt = stored.expiresAt.getTime();
        if (expiresAt <= Date.now() || expiresAt > latest) throw new AuthError('delegation_expired');
      }
      for (const guard of svc.turnGuards)
        await guard({ userDid, sessionId: params.sessionId, requestId, model });

      const request: TurnRequest = {
        message: body.message,
        model,
        tools: body.tools,
        agActions: body.agActions,
        metadata: body.metadata,
        timezone: body.timezone,
      };
      const [attachment] = body.attachments ?? [];
      const { runId } = await manager.startRun({
        sessionId: params.sessionId,
        userDid,
        requestId,
        request,
        userMessage: { id: randomUUID(), attachment },
        session,
        runsInFlight,
        thread,
      });
      // Started: the run frees its slot when it ends (a stream held open keeps no listener for it).
      res.off('close', freeSlot);

      if (body.stream) {
        const stream = openEventStream(res, {
          heartbeatMs,
          headers: { 'x-request-id': requestId, 'x-run-id': runId },
        });
        void manager
          .follow(runId, 0, stream.write, stream.signal, true)
          .catch((err: unknown) => res.locals.logger.warn({ err, runId }, 'stream: following the run failed'))
          .finally(stream.end);
        return { status: 200, body: stream.body as never };
      }

      // Not streamed: the answer once the turn is over (a dropped connection does not stop the turn).
      res.setHeader('x-run-id', runId);
      let content = '';
      let status = 'finished';
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      await manager.follow(
        runId,
        0,
        (record) => {
          if (record.event === 'message') content += record.data.content;
          if (record.event === 'done') {
            const done = record.data;
            status = done.status;
            if (done.partialText !== undefined) content = done.partialText;
          }
        },
        gone.signal,
        true,
      );
      if (status === 'failed')
        throw new OracleHttpError(503, 'unavailable', 'The model failed to answer; try again.');
      return {
        status: 200,
        body: { message: { type: 'ai' as const, content, id: requestId }, sessionId: params.sessionId },
      };
    },

    rejoinRun: async ({ params, query, headers, res }) => {
      const row = await runs.get(params.runId);
      if (!row || row.user_did !== caller(res).userDid || !(await manager.followable(row)))
        throw runNotFound();
      const lastEventId = headers['last-event-id'];
      const fromHeader =
        lastEventId !== undefined && /^\d{1,16}$/.test(lastEventId) ? Number(lastEventId) : undefined;
      const after = query.after ?? fromHeader ?? 0;
      const stream = openEventStream(res, {
        heartbeatMs,
        headers: { 'x-request-id': row.request_id, 'x-run-id': row.run_id },
      });
      void manager
        .follow(row.run_id, after, stream.write, stream.signal)
        .catch((err: unknown) => res.locals.logger.warn({ err }, 'stream: re-join failed'))
        .finally(stream.end);
      return { status: 200, body: stream.body as never };
    },

    createRoom: async ({ body, res }) => ({
      status: 201,
      body: await svc.rooms.create(caller(res).userDid, body?.name),
    }),

    listRooms: async ({ query, res }) => ({
      status: 200,
      body: await svc.rooms.list(caller(res).userDid, query.limit, query.offset),
    }),

    getRoom: async ({ params, res }) => {
      const room = await svc.rooms.get(params.roomId, caller(res).userDid);
      if (!room) throw roomNotFound();
      return { status: 200, body: room };
    },

    addRoomMember: async ({ params, res }) => {
      const { userDid } = caller(res);
      if ((await memberOf(res, params.roomId)) !== 'owner') {
        throw new OracleHttpError(403, 'room_owner_only', 'Only the owner of the room adds members.');
      }
      return { status: 200, body: await svc.rooms.addMember(params.roomId, params.memberDid, userDid) };
    },

    removeRoomMember: async ({ params, res }) => {
      const { userDid } = caller(res);
      const role = await memberOf(res, params.roomId);
      if (role === 'owner' && params.memberDid === userDid) {
        throw new OracleHttpError(400, 'bad_request', 'The owner cannot leave their room.');
      }
      if (role !== 'owner' && params.memberDid !== userDid) {
        throw new OracleHttpError(
          403,
          'room_owner_only',
          'Only the owner of the room removes other members.',
        );
      }
      const room = await svc.rooms.removeMember(params.roomId, params.memberDid, userDid);
      // Their open sockets of the room's sessions go now, on every instance (a new handshake is refused).
      svc.sockets.leaveRoom(params.roomId, params.memberDid);
      return { status: 200, body: room };
    },

    storeDelegation: async ({ body, res }) => {
      const { userDid } = caller(res);
      const token = await svc.verifier.verifyDelegation(body.serialized);
      if (token.issuer !== userDid) throw new AuthError('auth_issuer_mismatch');
      await svc.delegations.put(token);
      return {
        status: 200,
        body: {
          issuer: token.issuer,
          audience: token.audience,
          expiresAt: token.expiresAt ?? body.expiresAt,
        },
      };
    },
  });

  createExpressEndpoints(oracleContract, impl, router, {
    logInitialization: false,
    requestValidationErrorHandler: (err, req, res, next) =>
      oracleErrorHandler(err, req as Request, res, next),
    globalMiddleware: [
      (req, res, next) => {
        const meta = (req.tsRestRoute as { metadata?: OracleRouteMetadata }).metadata;
        if (meta?.auth === 'public') return next();
        svc.authenticated(req as Request, res, next);
      },
    ],
  });
}
