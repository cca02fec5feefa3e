import { USSD_SESSION_EXPIRED_REPLY, type UssdRequest } from '../../../contracts/ussd.js';
import type { MenuTree } from '../../../generated/menus.js';
import type { Logger } from '../../logger.js';
import type { AccountService } from '../accounts/accounts.js';
import type { SecretHasher } from '../crypto/secret-hash.js';
import type { AnyActionHandler } from './action-types.js';
import { CommitTracker } from './commit-tracker.js';
import { cursorOf, dataOf, freshCursor, type Cursor } from './cursor.js';
import { appendProcessed, newInput, segmentsOf } from './new-input.js';
import { renderReply } from './render-screen.js';
import { step } from './step.js';
import type { Turn } from './turn.js';
import { lastReplyOf, type EngineResult, type UssdEngine, type UssdSession } from './types.js';

/**
 * What the engine interprets and works with. The part (server/ussd/part.ts) hands in the generated menus
 * and their handlers; tests hand in a fixture tree and its own handlers.
 */
export interface UssdEngineDeps {
  tree: MenuTree;
  actions: Readonly<Record<string, AnyActionHandler>>;
  accounts: AccountService;
  /** Hashes secret inputs (a new PIN) while they wait for their confirmation. */
  secrets: SecretHasher;
  logger: Logger;
}

/**
 * The menu engine: interprets the compiled menu tree for one request at a time.
 *
 * - The request's `text` is split into its inputs once ({@link segmentsOf}); only the inputs after the
 *   session's `processedText` are applied, several at once if several arrived.
 * - An empty `text` is a dial: the top menu in a fresh context (logged out), whatever session the id had.
 * - The same `text` again (a gateway retry) answers the last reply and runs nothing.
 * - A `text` that does not extend `processedText` (a late or reordered request) also answers the last
 *   reply and changes nothing: the session moves only forward, from input it has seen in order.
 * - A non-empty `text` for an unknown session (expired, lost in a restart, belonging to another phone
 *   number, or stored by an older version that does not fit) answers {@link USSD_SESSION_EXPIRED_REPLY}
 *   and applies nothing: a PIN typed after expiry is never read as a menu choice. The user dials again.
 * - `processedText` is stored with every value typed into an input screen masked (`•`, same length), so
 *   the session store never holds a PIN, a name or an e-mail from the text; menu choices stay readable.
 * - An `END` reply returns no session (the caller deletes it).
 */
export function createUssdEngine(deps: UssdEngineDeps): UssdEngine {
  const { tree, actions, accounts, secrets } = deps;

  const start = async (request: UssdRequest, logger: Logger): Promise<Cursor> => {
    const [bound] = await Promise.all([
      accounts.findByPhone(request.phoneNumber),
      accounts.recordPhoneVisit(request.phoneNumber).catch((err: unknown) => {
        logger.warn({ err, sessionId: request.sessionId }, 'ussd: recording the phone visit failed');
      }),
    ]);
    return freshCursor(tree, bound?.language ?? tree.defaultLanguage);
  };

  const finish = (request: UssdRequest, cursor: Cursor, processedText: string): EngineResult => {
    const { reply, message } = renderReply(tree, cursor);
    if (cursor.ended !== undefined) return { reply, session: undefined, processedText };
    const session: UssdSession = {
      sessionId: request.sessionId,
      phoneNumber: request.phoneNumber,
      serviceCode: request.serviceCode,
      state: cursor.node,
      message,
      isAuthenticated: cursor.isAuthenticated,
      processedText,
      data: dataOf(cursor),
    };
    return { reply, session, processedText };
  };

  const run = async (
    logger: Logger,
    request: UssdRequest,
    cursor: Cursor,
    processed: string,
    segments: readonly string[],
  ): Promise<EngineResult> => {
    const tracked = new CommitTracker(accounts);
    const turn: Turn = { tree, actions, accounts: tracked, secrets, logger, request, cursor };
    // Masked in processedText: what an input took as a typed value, and what was never applied.
    const typed = segments.map(() => true);
    for (const [i, segment] of segments.entries()) {
      const result = await step(turn, segment);
      typed[i] = result.typed;
      if (result.next === 'end') break;
    }
    logger.debug({ sessionId: request.sessionId, state: cursor.node }, 'ussd step');
    const result = finish(request, cursor, appendProcessed(processed, segments, typed));
    return tracked.committed ? { ...result, committed: true } : result;
  };

  return {
    async handle(request, stored, logger = deps.logger) {
      const segments = segmentsOf(request.text);
      if (segments.length === 0) return run(logger, request, await start(request, logger), '', []);
      const cursor =
        stored && stored.phoneNumber === request.phoneNumber && stored.serviceCode === request.serviceCode
          ? cursorOf(stored, tree)
          : undefined;
      if (stored && cursor) {
        const input = newInput(stored.processedText, segments);
        if (input.kind === 'new') return run(logger, request, cursor, stored.processedText, input.segments);
        if (input.kind === 'diverged') {
          logger.warn(
            {
              sessionId: request.sessionId,
              processedLength: stored.processedText.length,
              textLength: request.text.length,
            },
            'ussd: text does not extend the processed text; answering the last reply',
          );
        }
        return { reply: lastReplyOf(stored), session: stored, processedText: stored.processedText };
      }
      logger.info(
        { sessionId: request.sessionId, stored: stored !== undefined },
        stored === undefined
          ? 'ussd: text for an unknown or expired session; answering that it expired'
          : 'ussd: stored session does not fit this request; answering that it expired',
      );
      return { reply: USSD_SESSION_EXPIRED_REPLY, session: undefined, processedText: '', expired: true };
    },
  };
}
