import type { UssdReply, UssdRequest } from '../../../contracts/ussd.js';
import type { Logger } from '../../logger.js';

/**
 * The fields of a stored USSD session that operators see (spec A3). The engine may store more fields
 * (navigation stack, pending inputs, pagination, language, …) in `data`; the store treats the whole object
 * as opaque JSON.
 */
export interface UssdSession {
  sessionId: string;
  phoneNumber: string;
  serviceCode: string;
  /** Id of the current menu node; the top menu is `preMenu`. */
  state: string;
  /**
   * The screen shown last (the reply without its `CON ` prefix; a stored session always continues), so a
   * retried request is answered `CON <message>` again.
   */
  message: string;
  isAuthenticated: boolean;
  /**
   * The accumulated `text` this session has already processed, with every value typed into an input screen
   * masked as `•` of the same length (so PINs never reach the store); only what follows it is new input.
   */
  processedText: string;
  /** Engine-private state (navigation stack, form inputs, page, language, customer id, …). */
  data: Record<string, unknown>;
}

/** The reply a stored session last gave, answered again to a retried request. */
export function lastReplyOf(session: Pick<UssdSession, 'message'>): UssdReply {
  return `CON ${session.message}`;
}

export interface EngineResult {
  reply: UssdReply;
  /** The session to save (TTL restarts), or undefined when the reply is `END` and the session must go. */
  session: UssdSession | undefined;
  /** The text the reply answers, typed values masked: what a retry of this request is compared with. */
  processedText: string;
  /** The request named no session the engine could continue (its reply is the session-expired END). */
  expired?: boolean;
  /**
   * An action committed a change to the accounts (an account created, a PIN changed or checked, a lock):
   * the reply reports it, so it is delivered even when saving the session fails afterwards.
   */
  committed?: boolean;
}

/** Turns one validated request and its stored session (if any) into a reply and the next session. */
export interface UssdEngine {
  /** `logger`: the request's own (its lines carry the request id); default the engine's. */
  handle(request: UssdRequest, session: UssdSession | undefined, logger?: Logger): Promise<EngineResult>;
}
