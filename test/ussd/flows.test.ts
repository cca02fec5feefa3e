import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { menuTree } from '../../generated/menus.js';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { createAccountService } from '../../server/ussd/accounts/account-service.js';
import { createPinCrypto, scryptCost } from '../../server/ussd/crypto/pin-crypto.js';
import { loadPinKeyring } from '../../server/ussd/crypto/pin-keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { engineDialer, TEST_SERVICE_CODE } from '../helpers/engine-dialer.js';
import { TEST_ENV } from '../helpers/env.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { loadFlows, replayFlow, type SendUssd } from '../helpers/ussd-flows.js';

const flows = await loadFlows();

describe('recorded flows', () => {
  it('cover every screen, end and action of the menus', async () => {
    // Every flow replayed on the engine; the engine's debug log names the node each request rests on (an
    // end node when the session ends there) and every action it runs with the node the action led to.
    const dialer = engineDialer();
    for (const flow of flows) {
      await replayFlow(flow, ({ sessionId, phoneNumber, text }) =>
        dialer.send(text, { sessionId, phoneNumber }),
      );
    }
    const reached = new Set<string>();
    for (const line of dialer.logs) {
      const entry = JSON.parse(line) as { msg?: string; state?: string; action?: string; next?: string };
      if (entry.msg === 'ussd step' && entry.state) reached.add(entry.state);
      if (entry.msg === 'ussd action' && entry.action && entry.next) {
        reached.add(`action:${entry.action}`);
        reached.add(entry.next);
      }
    }
    const required = Object.entries(menuTree.nodes).map(([id, node]) =>
      node.kind === 'action' ? `action:${node.action.name}` : id,
    );
    const actions = Object.values(menuTree.nodes).flatMap((node) =>
      node.kind === 'menu'
        ? node.options.flatMap((o) => (o.action ? [`action:${o.action.name}`] : []))
        : node.kind === 'input' && node.action
          ? [`action:${node.action.name}`]
          : [],
    );
    const missing = [...new Set([...required, ...actions])].filter((id) => !reached.has(id)).sort();
    expect(missing, 'menu nodes and actions no recorded flow (test/flows/*.yaml) reaches').toEqual([]);
  });
});

/** Direct to the engine: the in-memory test double of AccountService, then the real one over the database. */
describe.each([
  ['engine + in-memory AccountService double', false],
  ['engine + database AccountService', true],
])('flows through the %s', (_, realAccounts) => {
  let db: TestDb | undefined;
  let send: SendUssd;
  beforeAll(async () => {
    if (!realAccounts) {
      const dialer = engineDialer();
      send = ({ sessionId, phoneNumber, text }) => dialer.send(text, { sessionId, phoneNumber });
      return;
    }
    db = await openTestDb();
    const logger = createLogger('silent');
    const config = loadConfig(TEST_ENV);
    const accounts = createAccountService(
      db,
      createPinCrypto(loadPinKeyring(config, logger), scryptCost(config.PIN_SCRYPT_LOG2N)),
    );
    const dialer = engineDialer({ accounts });
    send = ({ sessionId, phoneNumber, text }) => dialer.send(text, { sessionId, phoneNumber });
  });
  afterAll(async () => {
    await db?.close();
  });

  it.each(flows.map((f) => [f.name, f] as const))('%s', async (_name, flow) => {
    const { expected, actual } = await replayFlow(flow, send);
    expect(actual).toEqual(expected);
  });
});

/** Through POST /api/ussd of the real app, with the in-process session store and (CI) with Redis. */
function flowsOverHttp(env: Record<string, string>): void {
  let app: TestApp;
  let send: SendUssd;
  beforeAll(async () => {
    app = await startTestApp({ env: { ENABLED_PARTS: 'ussd', ...env, USSD_RATE_LIMIT_PER_MINUTE: '0' } });
    send = async ({ sessionId, phoneNumber, text }) => {
      const res = await app.request
        .post('/api/ussd')
        .send({ sessionId, serviceCode: TEST_SERVICE_CODE, phoneNumber, text })
        .expect(200)
        .expect('Content-Type', /^text\/plain/);
      return res.text;
    };
  });
  afterAll(async () => {
    await app.close();
  });

  it.each(flows.map((f) => [f.name, f] as const))('%s', async (_name, flow) => {
    const { expected, actual } = await replayFlow(flow, send);
    expect(actual).toEqual(expected);
  });
}

describe('flows over HTTP with the in-process session store', () => flowsOverHttp({ REDIS_URL: '' }));
describe.runIf(TEST_REDIS_URL)('flows over HTTP with the Redis session store', () =>
  flowsOverHttp({ REDIS_URL: TEST_REDIS_URL ?? '' }),
);
