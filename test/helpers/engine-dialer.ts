import { Writable } from 'node:stream';
import type { MenuTree } from '../../generated/menus.js';
import { createLogger, type Logger } from '../../server/logger.js';
import type { AccountService } from '../../server/ussd/accounts/accounts.js';
import { actionHandlers } from '../../server/ussd/actions/index.js';
import { scryptCost } from '../../server/ussd/crypto/pin-crypto.js';
import { createSecretHasher } from '../../server/ussd/crypto/secret-hash.js';
import type { AnyActionHandler } from '../../server/ussd/engine/action-types.js';
import type { UssdEngine, UssdSession } from '../../server/ussd/engine/types.js';
import { createUssdEngine } from '../../server/ussd/engine/engine.js';
import { TEST_SCRYPT_LOG2N } from './env.js';
import { ENGINE_MENUS } from './fixture-menus.js';
import { createInMemoryAccountService, type InMemoryAccountService } from './in-memory-account-service.js';

export const TEST_PHONE = '+254700000001';

/**
 * The menu engine as tests build it: the engine's fixture menus (test/helpers/fixture-menus.ts; pass
 * `tree: menuTree` for the service's own) and the real handlers unless a test gives others,
 * PIN hashes at the test cost, a silent logger unless one is given.
 */
export function testEngine(options: {
  accounts: AccountService;
  tree?: MenuTree;
  actions?: Readonly<Record<string, AnyActionHandler>>;
  logger?: Logger;
}): UssdEngine {
  return createUssdEngine({
    tree: options.tree ?? ENGINE_MENUS,
    actions: options.actions ?? actionHandlers,
    accounts: options.accounts,
    secrets: createSecretHasher(scryptCost(TEST_SCRYPT_LOG2N)),
    logger: options.logger ?? createLogger('silent'),
  });
}
export const TEST_SERVICE_CODE = '*384*123#';

export interface DialOptions {
  sessionId?: string;
  phoneNumber?: string;
  serviceCode?: string;
}

/**
 * Drives the menu engine directly (over the engine's fixture menus and the real handlers unless a test
 * gives others), the way the HTTP route does: loads the session, calls `handle`, saves
 * the session (as JSON, like the Redis store) or deletes it on `END`. Every log line is kept in `logs`.
 */
export interface EngineDialer<A extends AccountService> {
  accounts: A;
  /** The engine itself, for a request the dialer's `send` does not make (another phone, a stored session). */
  engine: UssdEngine;
  /** Stored sessions as JSON text, by session id. */
  sessions: Map<string, string>;
  /** Every log line the engine wrote (debug level), as text. */
  logs: string[];
  send(text: string, options?: DialOptions): Promise<string>;
  session(sessionId?: string): UssdSession | undefined;
}

export function engineDialer(options?: {
  tree?: MenuTree;
  actions?: Readonly<Record<string, AnyActionHandler>>;
}): EngineDialer<InMemoryAccountService>;
export function engineDialer<A extends AccountService>(options: {
  accounts: A;
  tree?: MenuTree;
  actions?: Readonly<Record<string, AnyActionHandler>>;
}): EngineDialer<A>;
export function engineDialer(
  options: {
    accounts?: AccountService;
    tree?: MenuTree;
    actions?: Readonly<Record<string, AnyActionHandler>>;
  } = {},
): EngineDialer<AccountService> {
  const accounts = options.accounts ?? createInMemoryAccountService();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const engine = testEngine({ ...options, accounts, logger: createLogger('debug', sink) });
  const sessions = new Map<string, string>();
  const load = (id: string): UssdSession | undefined => {
    const json = sessions.get(id);
    return json === undefined ? undefined : (JSON.parse(json) as UssdSession);
  };
  return {
    accounts,
    engine,
    sessions,
    logs,
    async send(text, { sessionId = 's1', phoneNumber = TEST_PHONE, serviceCode = TEST_SERVICE_CODE } = {}) {
      const result = await engine.handle({ sessionId, phoneNumber, serviceCode, text }, load(sessionId));
      if (result.session) sessions.set(sessionId, JSON.stringify(result.session));
      else sessions.delete(sessionId);
      return result.reply;
    },
    session: (sessionId = 's1') => load(sessionId),
  };
}
