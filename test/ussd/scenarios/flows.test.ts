import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { menuTree } from '../../../generated/menus.js';
import { loadConfig } from '../../../server/config.js';
import { createLogger } from '../../../server/logger.js';
import type { AccountService, LanguageCode } from '../../../server/ussd/accounts/accounts.js';
import { createAccountService } from '../../../server/ussd/accounts/account-service.js';
import { createPinCrypto, scryptCost } from '../../../server/ussd/crypto/pin-crypto.js';
import { loadPinKeyring } from '../../../server/ussd/crypto/pin-keys.js';
import type { UssdPart } from '../../../server/ussd/part.js';
import { loadFlows } from '../../../scripts/tools/lib/ussd-flows/flow-file.js';
import { idLikeWords } from '../../../scripts/tools/lib/ussd-flows/flow-template.js';
import { replayFlow, type FlowTarget } from '../../../scripts/tools/lib/ussd-flows/replay.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { engineDialer, TEST_SERVICE_CODE } from '../../helpers/engine-dialer.js';
import { TEST_ENV } from '../../helpers/env.js';
import { TEST_REDIS_URL } from '../../helpers/redis.js';
import { menuTexts, unreached } from '../../../scripts/tools/lib/ussd-flows/coverage.js';

// The recorded flows (test/flows/*.yaml) pin the behaviour of the service's menus (menus/): after a menu
// change, `npm run test:flows -- --update` records them again. Here they run on the engine (accounts in
// memory and in the database) and over HTTP (in-process and Redis sessions).
const flows = await loadFlows();
const notIds = idLikeWords(menuTexts(menuTree));

/** A flow target whose accounts are created through `accounts` (never through the menus). */
function target(send: FlowTarget['send'], accounts: () => AccountService): FlowTarget {
  return {
    send,
    notIds,
    createAccount: async ({ name, email, pin, phoneNumber, language }) =>
      (
        await accounts().createCustomer({
          fullName: name,
          email: email ?? null,
          pin,
          phoneNumber,
          language: (language ?? menuTree.defaultLanguage) as LanguageCode,
        })
      ).customerId,
  };
}

const transcript = (steps: { text: string; expected: string; actual: string }[]) => ({
  expected: steps.map((s) => `${s.text} → ${s.expected}`),
  actual: steps.map((s) => `${s.text} → ${s.actual}`),
});

describe('recorded flows', () => {
  it('cover every screen, end and action of the menus', async () => {
    // Every flow replayed on the engine; its debug log names every node and action reached.
    const dialer = engineDialer({ tree: menuTree });
    const t = target(
      ({ sessionId, phoneNumber, text }) => dialer.send(text, { sessionId, phoneNumber }),
      () => dialer.accounts,
    );
    for (const flow of flows) await replayFlow(flow, t);
    expect(
      unreached(menuTree, dialer.logs),
      'menu nodes and actions no recorded flow (test/flows/*.yaml) reaches',
    ).toEqual([]);
  });
});

/** Direct to the engine: the in-memory test double of AccountService, then the real one over the database. */
describe.each([
  ['engine + in-memory AccountService double', false],
  ['engine + database AccountService', true],
])('flows through the %s', (_, realAccounts) => {
  let db: TestDb | undefined;
  let flowTarget: FlowTarget;
  beforeAll(async () => {
    let accounts: AccountService | undefined;
    if (realAccounts) {
      db = await openTestDb();
      const logger = createLogger('silent');
      const config = loadConfig(TEST_ENV);
      accounts = createAccountService(
        db,
        createPinCrypto(loadPinKeyring(config, logger), scryptCost(config.PIN_SCRYPT_LOG2N)),
      );
    }
    const dialer = accounts ? engineDialer({ accounts, tree: menuTree }) : engineDialer({ tree: menuTree });
    flowTarget = target(
      ({ sessionId, phoneNumber, text }) => dialer.send(text, { sessionId, phoneNumber }),
      () => dialer.accounts,
    );
  });
  afterAll(async () => {
    await db?.close();
  });

  it.each(flows.map((f) => [f.name, f] as const))('%s', async (_name, flow) => {
    const { expected, actual } = transcript((await replayFlow(flow, flowTarget)).steps);
    expect(actual).toEqual(expected);
  });
});

/** Through POST /api/ussd of the real app, with the in-process session store and (CI) with Redis. */
function flowsOverHttp(env: Record<string, string>): void {
  let app: TestApp;
  let flowTarget: FlowTarget;
  beforeAll(async () => {
    app = await startTestApp({ env: { ENABLED_PARTS: 'ussd', ...env, USSD_RATE_LIMIT_PER_MINUTE: '0' } });
    flowTarget = target(
      async ({ sessionId, phoneNumber, text }) => {
        const res = await app.request
          .post('/api/ussd')
          .send({ sessionId, serviceCode: TEST_SERVICE_CODE, phoneNumber, text })
          .expect(200)
          .expect('Content-Type', /^text\/plain/);
        return res.text;
      },
      () => app.part<UssdPart>('ussd').accounts,
    );
  });
  afterAll(async () => {
    await app.close();
  });

  it.each(flows.map((f) => [f.name, f] as const))('%s', async (_name, flow) => {
    const { expected, actual } = transcript((await replayFlow(flow, flowTarget)).steps);
    expect(actual).toEqual(expected);
  });
}

describe('flows over HTTP with the in-process session store', () => flowsOverHttp({ REDIS_URL: '' }));
describe.runIf(TEST_REDIS_URL)('flows over HTTP with the Redis session store', () =>
  flowsOverHttp({ REDIS_URL: TEST_REDIS_URL ?? '' }),
);
