import type { UssdRequest } from '../../contracts/ussd.js';
import { menuTree, type MenuTree } from '../../generated/menus.js';
import type { Logger } from '../logger.js';
import type { AccountService } from './accounts.js';
import { actionHandlers } from './actions/index.js';
import type { EngineResult, UssdEngine, UssdSession } from './engine-types.js';
import type { AnyActionHandler } from './engine/action-types.js';
import { cursorOf, dataOf, freshCursor, type Cursor } from './engine/cursor.js';
import { appendProcessed, newInput } from './engine/new-input.js';
import { renderReply } from './engine/render-screen.js';
import { step } from './engine/step.js';
import type { Turn } from './engine/turn.js';

/** What the engine needs. `tree` and `actions` default to the generated menus and their handlers. */
export interface UssdEngineDeps {
  accounts: AccountService;
  logger: Logger;
  tree?: MenuTree;
  actions?: Readonly<Record<string, AnyActionHandler>>;
}

/**
 * The menu engine: interprets the compiled menu tree for one request at a time.
 *
 * - Only the inputs after the session's `processedText` are applied, several at once if several arrived.
 * - The same `text` again (a gateway retry) answers `lastReply` and runs nothing.
 * - A `text` that does not extend `processedText` (a late or reordered request) also answers `lastReply`
 *   and changes nothing: the session moves only forward, from input it has seen in order.
 * - A `text` for an unknown session (expired, lost in a restart, or belonging to another phone number)
 *   starts at `preMenu` and replays the inputs as navigation only: menu options that lead to screens,
 *   `0`, `98` and `*`. It stops at the first input that would run an action or be typed into an input
 *   (the screen reached is shown), so nothing the session never saw has a side effect.
 * - `processedText` is stored with every value typed into an input screen masked (`•`, same length), so
 *   the session store never holds a PIN, a name or an e-mail from the text; menu choices stay readable.
 * - An `END` reply returns no session (the caller deletes it).
 */
export function createUssdEngine(deps: UssdEngineDeps): UssdEngine {
  const tree = deps.tree ?? menuTree;
  const actions = deps.actions ?? actionHandlers;

  const start = async (request: UssdRequest): Promise<Cursor> => {
    const [bound] = await Promise.all([
      deps.accounts.findByPhone(request.phoneNumber),
      deps.accounts.recordPhoneVisit(request.phoneNumber).catch((err: unknown) => {
        deps.logger.warn({ err, sessionId: request.sessionId }, 'ussd: recording the phone visit failed');
      }),
    ]);
    return freshCursor(tree, bound?.language ?? tree.defaultLanguage);
  };

  const finish = (request: UssdRequest, cursor: Cursor, processedText: string): EngineResult => {
    const { reply, message } = renderReply(tree, cursor);
    if (cursor.ended !== undefined) return { reply, session: undefined };
    const session: UssdSession = {
      sessionId: request.sessionId,
      phoneNumber: request.phoneNumber,
      serviceCode: request.serviceCode,
      state: cursor.node,
      message,
      isAuthenticated: cursor.isAuthenticated,
      processedText,
      lastReply: reply,
      data: dataOf(cursor),
    };
    return { reply, session };
  };

  const run = async (
    request: UssdRequest,
    cursor: Cursor,
    processed: string,
    segments: readonly string[],
    mode: Turn['mode'],
  ): Promise<EngineResult> => {
    const turn: Turn = {
      tree,
      actions,
      accounts: deps.accounts,
      logger: deps.logger,
      request,
      cursor,
      mode,
      typed: false,
    };
    // Masked in processedText: what an input took as a typed value, and what was never applied.
    const typed = segments.map(() => true);
    for (const [i, segment] of segments.entries()) {
      turn.typed = false;
      const result = await step(turn, segment);
      if (result === 'stop') break;
      typed[i] = turn.typed;
      if (result === 'end') break;
    }
    deps.logger.debug({ sessionId: request.sessionId, state: cursor.node, mode }, 'ussd step');
    return finish(request, cursor, appendProcessed(processed, segments, typed));
  };

  return {
    async handle(request, stored) {
      const cursor =
        stored && stored.phoneNumber === request.phoneNumber && stored.serviceCode === request.serviceCode
          ? cursorOf(stored, tree)
          : undefined;
      if (stored && cursor) {
        const input = newInput(stored.processedText, request.text);
        if (input.kind === 'new') return run(request, cursor, stored.processedText, input.segments, 'full');
        if (input.kind === 'diverged') {
          deps.logger.warn(
            {
              sessionId: request.sessionId,
              processedLength: stored.processedText.length,
              textLength: request.text.length,
            },
            'ussd: text does not extend the processed text; answering the last reply',
          );
        }
        return { reply: stored.lastReply, session: stored };
      }
      if (stored)
        deps.logger.warn(
          { sessionId: request.sessionId },
          'ussd: stored session does not fit; starting afresh',
        );
      const segments = request.text === '' ? [] : request.text.split('*');
      return run(request, await start(request), '', segments, 'navigation');
    },
  };
}
