import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { createAccountService } from '../../server/ussd/account-service.js';
import { createPinCrypto } from '../../server/ussd/pin-crypto.js';
import { loadPinKeyring } from '../../server/ussd/pin-keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { engineDialer, TEST_SERVICE_CODE } from '../helpers/engine-dialer.js';
import { loadFlows, replayFlow, type SendUssd } from '../helpers/ussd-flows.js';

const flows = await loadFlows();
const REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';

describe('recorded flows', () => {
  it('cover the menus', () => {
    expect(flows.map((f) => f.name)).toEqual([
      'account-details-and-pin-change',
      'back-and-exit',
      'create-account-invalid-name',
      'create-account-weak-pin',
      'create-account',
      'know-more',
      'language',
      'login-lockout',
      'login',
      'logout',
      'unknown-option',
    ]);
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
    const accounts = createAccountService(
      db,
      createPinCrypto(loadPinKeyring(loadConfig({ NODE_ENV: 'test' }), logger)),
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

/** Through POST /api/ussd of the real app, with the in-process session store and with Redis. */
describe.each([
  ['in-process session store', { REDIS_URL: '' }],
  ['Redis session store', { REDIS_URL }],
])('flows over HTTP with the %s', (_, env) => {
  let app: TestApp;
  let send: SendUssd;
  beforeAll(async () => {
    app = await startTestApp({ env: { ...env, USSD_RATE_LIMIT_PER_MINUTE: '0' } });
    // The server starts before its Redis connection is ready (commands are not queued), so a request sent
    // at once fails; wait for it. Reported to the gateway's owner: startup should wait for Redis itself.
    const redis = app.ctx.redis;
    if (redis && redis.status !== 'ready') await once(redis, 'ready');
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
});
