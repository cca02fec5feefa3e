import type { UssdReply, UssdRequest } from '../../contracts/ussd.js';

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
  /** The last text shown to the user (the reply without its `CON `/`END ` prefix). */
  message: string;
  isAuthenticated: boolean;
  /**
   * The accumulated `text` this session has already processed, with every value typed into an input screen
   * masked as `•` of the same length (so PINs never reach the store); only what follows it is new input.
   */
  processedText: string;
  /** The full reply to `processedText`, answered again for a retried request. */
  lastReply: UssdReply;
  /** Engine-private state (navigation stack, form inputs, page, language, customer id, …). */
  data: Record<string, unknown>;
}

export interface EngineResult {
  reply: UssdReply;
  /** The session to save (TTL restarts), or undefined when the reply is `END` and the session must go. */
  session: UssdSession | undefined;
}

/** Turns one validated request and its stored session (if any) into a reply and the next session. */
export interface UssdEngine {
  handle(request: UssdRequest, session: UssdSession | undefined): Promise<EngineResult>;
}
