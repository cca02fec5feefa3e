import type { PartFactory } from '../part.js';
import { createAccountService } from './account-service.js';
import { createUssdEngine } from './engine.js';
import { createUssdGateway } from './gateway.js';
import { createPinCrypto } from './pin-crypto.js';
import { loadPinKeyring } from './pin-keys.js';
import { createValueSealer } from './value-sealer.js';
import { createVisitBatcher } from './visit-batcher.js';

/**
 * The USSD session gateway (spec part A): `POST /api/ussd` and the operator routes, over the menu engine
 * and the accounts in the database. Rejects (the server refuses to start) on a malformed PIN key, and in
 * production without one.
 */
export const createUssdPart: PartFactory = (ctx) =>
  Promise.resolve().then(() => {
    const keyring = loadPinKeyring(ctx.config, ctx.logger);
    const visits = createVisitBatcher(ctx.db, ctx.logger);
    // Phone visits are written behind, once a second, off the dial path (see visit-batcher.ts).
    const accounts = {
      ...createAccountService(ctx.db, createPinCrypto(keyring)),
      recordPhoneVisit: visits.record,
    };
    const engine = createUssdEngine({ accounts, logger: ctx.logger });
    const gateway = createUssdGateway(ctx, { engine, sealer: createValueSealer(keyring, 'ussd-sessions') });
    return {
      ...gateway,
      async close() {
        await gateway.close();
        await visits.close();
      },
    };
  });
