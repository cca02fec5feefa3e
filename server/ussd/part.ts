import { menuTree, type MenuTree } from '../../generated/menus.js';
import type { Part, PartContext } from '../part.js';
import type { UssdGatewayConfig } from './config.js';
import type { AccountService } from './accounts/accounts.js';
import { createAccountService } from './accounts/account-service.js';
import { createVisitBatcher } from './accounts/visit-batcher.js';
import { actionHandlers } from './actions/index.js';
import { createPinCrypto, scryptCost } from './crypto/pin-crypto.js';
import { loadPinKeyring } from './crypto/pin-keys.js';
import { createSecretHasher } from './crypto/secret-hash.js';
import { createValueSealer } from './crypto/value-sealer.js';
import { createUssdEngine } from './engine/engine.js';
import type { UssdEngine } from './engine/types.js';
import { createUssdGateway } from './gateway.js';
import { createSimulatorRouter } from './simulator/simulator-router.js';
import { Router } from 'express';
import type { LiveMenus } from './live-menus.js';

/** What a caller (a test) may choose when building the part; production uses the defaults. */
export interface UssdPartOptions {
  /** The engine over the part's accounts (default: the menu engine over the generated menus). */
  engine?: (accounts: AccountService) => UssdEngine;
  /**
   * Menus that change while the server runs (`npm run dev`): each request is served by the tree the source
   * holds then. Without it the generated menus are served, as production does.
   */
  menus?: LiveMenus;
}

/** The built part, with the accounts and engine it runs on. */
export interface UssdPart extends Part {
  accounts: AccountService;
  engine: UssdEngine;
}

/**
 * The USSD session gateway (spec part A): `POST /api/ussd` and the operator routes, over the menu engine
 * and the accounts in the database. Here the generated menus meet their action handlers: the engine
 * interprets whatever tree and handlers it is given. Rejects (the server refuses to start) on a malformed
 * PIN key, and in production without one.
 */
export function createUssdPart(
  ctx: PartContext<UssdGatewayConfig>,
  options: UssdPartOptions = {},
): Promise<UssdPart> {
  return Promise.resolve().then(() => {
    const keyring = loadPinKeyring(ctx.config, ctx.logger);
    const cost = scryptCost(ctx.config.PIN_SCRYPT_LOG2N);
    const visits = createVisitBatcher(ctx.db, ctx.logger);
    // Phone visits are written behind, once a second, off the dial path (see accounts/visit-batcher.ts).
    const accounts: AccountService = {
      ...createAccountService(ctx.db, createPinCrypto(keyring, cost)),
      recordPhoneVisit: visits.record,
    };
    const engineOver = (tree: MenuTree): UssdEngine =>
      createUssdEngine({
        tree,
        actions: actionHandlers,
        accounts,
        secrets: createSecretHasher(cost),
        logger: ctx.logger,
      });
    const engine =
      options.engine?.(accounts) ??
      (options.menus ? liveEngine(options.menus, engineOver) : engineOver(menuTree));
    const gateway = createUssdGateway(ctx, {
      engine,
      sealer: createValueSealer(keyring, 'ussd-sessions'),
    });
    // The phone simulator page (/ussd/simulator) beside the gateway's routes.
    const router = Router();
    router.use(createSimulatorRouter(ctx.config, options.menus ?? menuTree));
    router.use(gateway.router);
    return {
      ...gateway,
      router,
      accounts,
      engine,
      async close() {
        await gateway.close();
        await visits.close();
      },
    };
  });
}

/** An engine that follows `menus`: a new engine for each new tree, built when the first request needs it. */
function liveEngine(menus: LiveMenus, engineOver: (tree: MenuTree) => UssdEngine): UssdEngine {
  let built = { tree: menus.tree, engine: engineOver(menus.tree) };
  return {
    handle(request, session, logger) {
      if (built.tree !== menus.tree) built = { tree: menus.tree, engine: engineOver(menus.tree) };
      return built.engine.handle(request, session, logger);
    },
  };
}
