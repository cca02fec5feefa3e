import type { Part, PartContext, PartFactory } from '../part.js';
import type { AccountService } from './accounts.js';
import { createAccountService } from './account-service.js';
import { createUssdEngine } from './engine.js';
import type { UssdEngine } from './engine-types.js';
import { createUssdGateway } from './gateway.js';
import { createPinCrypto } from './pin-crypto.js';
import { loadPinKeyring } from './pin-keys.js';
import { createValueSealer } from './value-sealer.js';
import { createVisitBatcher } from './visit-batcher.js';

/** What a caller (a test) may choose when building the part; production uses the defaults. */
export interface UssdPartOptions {
  /** The engine over the part's accounts (default: the menu engine). */
  engine?: (accounts: AccountService) => UssdEngine;
  /** Redis key prefix of sessions and rate limits (default `ussd:`). */
  redisPrefix?: string;
}

/** The built part, with the accounts and engine it runs on. */
export interface UssdPart extends Part {
  accounts: AccountService;
  engine: UssdEngine;
}

/**
 * The USSD session gateway (spec part A): `POST /api/ussd` and the operator routes, over the menu engine
 * and the accounts in the database. Throws (the server refuses to start) on a malformed PIN key, and in
 * production without one.
 */
export function buildUssdPart(ctx: PartContext, options: UssdPartOptions = {}): UssdPart {
  const keyring = loadPinKeyring(ctx.config, ctx.logger);
  const visits = createVisitBatcher(ctx.db, ctx.logger);
  // Phone visits are written behind, once a second, off the dial path (see visit-batcher.ts).
  const accounts: AccountService = {
    ...createAccountService(ctx.db, createPinCrypto(keyring)),
    recordPhoneVisit: visits.record,
  };
  const engine = options.engine?.(accounts) ?? createUssdEngine({ accounts, logger: ctx.logger });
  const gateway = createUssdGateway(ctx, {
    engine,
    sealer: createValueSealer(keyring, 'ussd-sessions'),
    ...(options.redisPrefix === undefined ? {} : { redisPrefix: options.redisPrefix }),
  });
  return {
    ...gateway,
    accounts,
    engine,
    async close() {
      await gateway.close();
      await visits.close();
    },
  };
}

export const createUssdPart: PartFactory = (ctx) => Promise.resolve().then(() => buildUssdPart(ctx));
