import type { UssdReply, UssdRequest } from '../../../contracts/ussd.js';
import { isRepeatOf } from '../engine/new-input.js';
import type { UssdEngine, UssdSession } from '../engine/types.js';
import { createKeyedMutex } from './keyed-mutex.js';
import type { SessionStore } from './session-store.js';

/** The last reply of a session that ended, kept briefly so a retried final request gets it again. */
export interface EndedReply {
  /** The text that reply answered, typed values masked (as a session's `processedText`): never a PIN. */
  processedText: string;
  reply: UssdReply;
}

/** Dependencies of {@link createSessionFlow}. */
export interface SessionFlowDeps {
  engine: UssdEngine;
  sessions: SessionStore<UssdSession>;
  /** Final replies of ended sessions; not sessions, so they are neither listed nor found by the debug route. */
  ended: SessionStore<EndedReply>;
  /** Inactivity expiry of a session (USSD_SESSION_TTL_SECONDS). */
  ttlSeconds: number;
  /** How long a final reply is kept for retries. Default 60 s. */
  endedTtlSeconds?: number;
}

/** One validated USSD request in, its reply out. Throws when a store or the engine fails. */
export interface SessionFlow {
  handle(request: UssdRequest): Promise<UssdReply>;
  /**
   * Closes a session that was answered with an `END` outside the flow (the invalid-input reply): the next
   * request with text for it is told the session expired, and an empty text starts afresh.
   */
  close(sessionId: string): Promise<void>;
}

/**
 * The gateway's request flow: load the session, let the engine handle the input, then save the session
 * (restarting its inactivity timer) or, on an `END` reply, remove it at once. A failure also removes it
 * (the caller answers with an END). Requests of one session are serialised in this process, so a retry
 * that arrives while the original still runs waits for it.
 *
 * Every `END` closes the session: an engine END deletes it here, a failure deletes it below, and the
 * router closes it ({@link SessionFlow.close}) when it answers the invalid-input END. Retries (the telecom
 * gateway resending the same `text` after a timeout) of a live session are the engine's to answer. A retry of a session's final request finds no session; it gets the short-lived ended
 * reply kept here instead of starting over.
 */
export function createSessionFlow(deps: SessionFlowDeps): SessionFlow {
  const { engine, sessions, ended, ttlSeconds } = deps;
  const endedTtl = deps.endedTtlSeconds ?? 60;
  const mutex = createKeyedMutex();

  const run = async (request: UssdRequest): Promise<UssdReply> => {
    const { sessionId, text } = request;
    const session = await sessions.get(sessionId);
    if (session === undefined && text !== '') {
      const last = await ended.get(sessionId);
      // (An entry written before processedText existed holds none: it is no retry's answer.)
      if (typeof last?.processedText === 'string' && isRepeatOf(last.processedText, text)) return last.reply;
    }
    const result = await engine.handle(request, session);
    if (result.expired === true) {
      // Nothing was applied: keep any final reply of the session for its retries, drop what did not fit.
      if (session !== undefined) await sessions.delete(sessionId);
    } else if (result.session === undefined || result.reply.startsWith('END ')) {
      await Promise.all([
        sessions.delete(sessionId),
        ended.set(sessionId, { processedText: result.processedText, reply: result.reply }, endedTtl),
      ]);
    } else {
      await sessions.set(sessionId, result.session, ttlSeconds);
    }
    return result.reply;
  };

  // The failure reply is an END, which closes the session at the telecom gateway: drop ours too, if the
  // store still answers, so a later request starts clean instead of resuming a half-finished step.
  const runOrDrop = async (request: UssdRequest): Promise<UssdReply> => {
    try {
      return await run(request);
    } catch (err) {
      await sessions.delete(request.sessionId).catch(() => undefined);
      throw err;
    }
  };

  return {
    handle: (request) => mutex.run(request.sessionId, () => runOrDrop(request)),
    close: (sessionId) => mutex.run(sessionId, () => sessions.delete(sessionId)),
  };
}
