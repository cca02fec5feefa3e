import type { UssdReply, UssdRequest } from '../../../contracts/ussd.js';
import { isRepeatOf } from '../engine/new-input.js';
import type { Logger } from '../../logger.js';
import type { EngineResult, UssdEngine, UssdSession } from '../engine/types.js';
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
  /** Where a store failure after a committed change is reported (it is not the request's failure). */
  logger?: Logger;
}

/** One validated USSD request in, its reply out. Throws when a store or the engine fails. */
export interface SessionFlow {
  /** `logger`: the request's own (its lines carry the request id); default the flow's. */
  handle(request: UssdRequest, logger?: Logger): Promise<UssdReply>;
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
 * gateway resending the same `text` after a timeout) of a live session are the engine's to answer. A
 * retry of a session's final request finds no session; it gets the short-lived ended reply kept here.
 *
 * No outcome the user never learns about: a store failure before the engine ran, or after a step that
 * committed nothing, is the unavailable reply (nothing happened). After a step that committed a change,
 * the reply is delivered whatever the store does (docs/ussd-gateway.md).
 */
export function createSessionFlow(deps: SessionFlowDeps): SessionFlow {
  const { engine, sessions, ended, ttlSeconds } = deps;
  const endedTtl = deps.endedTtlSeconds ?? 60;
  const mutex = createKeyedMutex();

  const run = async (request: UssdRequest, logger: Logger | undefined): Promise<UssdReply> => {
    const { sessionId, text } = request;
    const session = await sessions.get(sessionId);
    if (session === undefined && text !== '') {
      const last = await ended.get(sessionId);
      // (An entry written before processedText existed holds none: it is no retry's answer.)
      if (typeof last?.processedText === 'string' && isRepeatOf(last.processedText, text)) return last.reply;
    }
    const result = await engine.handle(request, session, logger);
    try {
      await persist(sessionId, session, result);
    } catch (err) {
      if (result.committed !== true) throw err;
      // The reply reports a change already committed (an account, a PIN, a lock): the user must learn it.
      // The session is dropped if the store still answers (its next text is told the session expired, so
      // the step that committed is never replayed from a stale session); retries of a creation are
      // idempotent per (phone, session) in the accounts anyway. The reply does not wait for that attempt.
      (logger ?? deps.logger)?.warn(
        { err, sessionId, reply: result.reply.slice(0, 3) },
        'ussd: the session store failed after a committed change; delivering its reply',
      );
      void sessions.delete(sessionId).catch(() => undefined);
    }
    return result.reply;
  };

  const persist = async (
    sessionId: string,
    session: UssdSession | undefined,
    result: EngineResult,
  ): Promise<void> => {
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
  };

  // The failure reply is an END, which closes the session at the telecom gateway: drop ours too, if the
  // store still answers, so a later request starts clean instead of resuming a half-finished step.
  const runOrDrop = async (request: UssdRequest, logger: Logger | undefined): Promise<UssdReply> => {
    try {
      return await run(request, logger);
    } catch (err) {
      await sessions.delete(request.sessionId).catch(() => undefined);
      throw err;
    }
  };

  return {
    handle: (request, logger) => mutex.run(request.sessionId, () => runOrDrop(request, logger)),
    close: (sessionId) => mutex.run(sessionId, () => sessions.delete(sessionId)),
  };
}
