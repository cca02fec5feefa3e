import { readFileSync } from 'node:fs';
import type { MenuTree } from '../../generated/menus.js';
import type { PartFactory } from '../../server/part.js';
import type { UssdGatewayConfig } from '../../server/ussd/config.js';
import { actionHandlers } from '../../server/ussd/actions/index.js';
import { scryptCost } from '../../server/ussd/crypto/pin-crypto.js';
import { createSecretHasher } from '../../server/ussd/crypto/secret-hash.js';
import { createUssdEngine } from '../../server/ussd/engine/engine.js';
import { createUssdPart } from '../../server/ussd/part.js';

/** A compiled fixture tree (test/fixtures/menus/<name>), read from its golden output, which a test keeps current. */
export function fixtureTree(name: string): MenuTree {
  const source = readFileSync(`test/fixtures/menus/${name}/expected/menus.ts.golden`, 'utf8');
  const marker = 'export const menuTree: MenuTree = ';
  return JSON.parse(source.slice(source.indexOf(marker) + marker.length).replace(/;\n$/, '')) as MenuTree;
}

/**
 * The menus the engine's unit tests run on (test/fixtures/menus/engine): the same node and action ids as the
 * service's menus, so the real handlers run on it, with texts of its own. A change to menus/ never touches
 * a unit test; the recorded flows (test/flows/) pin the real menus.
 */
export const ENGINE_MENUS: MenuTree = fixtureTree('engine');

/**
 * The USSD part of startTestApp over {@link ENGINE_MENUS} and the real handlers: `parts: { ussd: engineMenusPart() }`
 * for a gateway test that types its way through menus.
 */
export function engineMenusPart(): PartFactory<UssdGatewayConfig> {
  return (ctx) =>
    createUssdPart(ctx, {
      engine: (accounts) =>
        createUssdEngine({
          tree: ENGINE_MENUS,
          actions: actionHandlers,
          accounts,
          secrets: createSecretHasher(scryptCost(ctx.config.PIN_SCRYPT_LOG2N)),
          logger: ctx.logger,
        }),
    });
}
