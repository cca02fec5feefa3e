import type { UssdReply } from '../../contracts/ussd.js';
import type { AccountService } from '../../server/ussd/accounts/accounts.js';
import { segmentsOf } from '../../server/ussd/engine/new-input.js';
import {
  lastReplyOf,
  type EngineResult,
  type UssdEngine,
  type UssdSession,
} from '../../server/ussd/engine/types.js';
import { createUssdPart } from '../../server/ussd/part.js';
import type { PartFactory } from '../../server/part.js';
import type { UssdGatewayConfig } from '../../server/ussd/config.js';

/**
 * TEST DOUBLE of the menu engine, for the gateway's own tests: it knows nothing of the real menus and
 * answers from a tiny fixed script, so the router, stores and error paths can be tested on their own.
 *
 * Last input segment → reply:
 * - dial (`text` empty) → `CON Test menu\n1. Echo\n2. Account\n*. Exit` (state `preMenu`)
 * - `*` → `END Goodbye` (session ends)
 * - `boom` → the engine throws (a programming error)
 * - `acct` → reads the account bound to the phone through AccountService (touches the database)
 * - `slow` → `CON You typed slow` after 30 ms (a slow step, for concurrency tests)
 * - anything else → `CON You typed <segment>` (state `echo`)
 *
 * Like the real engine, the same `text` again on a live session (a gateway retry) answers the last reply.
 * `inputsRun` counts the requests that ran as new input: the stand-in for a side effect.
 */
export interface ScriptedTestEngine extends UssdEngine {
  inputsRun: number;
}

export function createScriptedTestEngine(accounts?: AccountService): ScriptedTestEngine {
  const engine: ScriptedTestEngine = {
    inputsRun: 0,
    async handle(request, previous): Promise<EngineResult> {
      const processedText = request.text;
      if (previous !== undefined && previous.processedText === request.text) {
        return { reply: lastReplyOf(previous), session: previous, processedText };
      }
      engine.inputsRun++;
      const last = segmentsOf(request.text).at(-1);
      const save = (state: string, reply: UssdReply): EngineResult => {
        const session: UssdSession = {
          sessionId: request.sessionId,
          phoneNumber: request.phoneNumber,
          serviceCode: request.serviceCode,
          state,
          message: reply.slice(4),
          isAuthenticated: previous?.isAuthenticated ?? false,
          processedText,
          data: { steps: ((previous?.data['steps'] as number | undefined) ?? 0) + 1 },
        };
        return { reply, session, processedText };
      };
      if (last === undefined) return save('preMenu', 'CON Test menu\n1. Echo\n2. Account\n*. Exit');
      if (last === '' || request.text.endsWith('*')) {
        return { reply: 'END Goodbye', session: undefined, processedText };
      }
      if (last === 'boom') throw new Error('scripted engine failure');
      if (last === 'slow') await new Promise((resolve) => setTimeout(resolve, 30));
      if (last === 'acct') {
        if (accounts === undefined) throw new Error('no accounts given to the scripted engine');
        const customer = await accounts.findByPhone(request.phoneNumber);
        return save('account', `CON Account: ${customer?.customerId ?? 'none'}`);
      }
      return save('echo', `CON You typed ${last}`);
    },
  };
  return engine;
}

/**
 * The USSD part over a scripted engine, for startTestApp's `parts`: `{ ussd: scriptedUssdPart(engine) }`.
 * Without `engine`, a fresh one over the part's own accounts.
 */
export function scriptedUssdPart(engine?: ScriptedTestEngine): PartFactory<UssdGatewayConfig> {
  return (ctx) => createUssdPart(ctx, { engine: (accounts) => engine ?? createScriptedTestEngine(accounts) });
}
