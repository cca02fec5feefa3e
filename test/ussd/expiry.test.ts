import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { ussdDialog } from './helpers/ussd-dialog.js';
import { deleteKeys, openTestRedis, startUssdTestApp } from './helpers/ussd-app.js';

// Inactivity expiry (spec section 3; reference defect #5 never expired sessions), with a 1-second
// USSD_SESSION_TTL_SECONDS, on both session stores.
const prefix = `test:expiry:${randomBytes(4).toString('hex')}:`;
let redis: Redis;
let db: TestDb;
beforeAll(async () => {
  [redis, db] = await Promise.all([openTestRedis(), openTestDb()]);
});
afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await db.close();
});

describe.each(['memory', 'redis'] as const)('%s sessions', (kind) => {
  it('expire after USSD_SESSION_TTL_SECONDS of inactivity; activity restarts the timer; a new dial starts over', async () => {
    await using t = await startUssdTestApp({
      db,
      env: { USSD_SESSION_TTL_SECONDS: '1', USSD_RATE_LIMIT_PER_MINUTE: '0' },
      ...(kind === 'redis' ? { redis, redisPrefix: `${prefix}${kind}:` } : {}),
    });
    const d = ussdDialog(t.request);
    const top = await d.dial();
    await sleep(600);
    const knowMore = await d.send('1');
    expect(knowMore).not.toBe(top);
    await sleep(600);
    // 1.2 s after the dial but 0.6 s after the last request: still there.
    const alive = await t.request.get(`/api/ussd/debug/${d.sessionId}`).expect(200);
    expect(alive.body.debugInfo.context.message).toBe(knowMore.slice(4));
    await sleep(1300);
    const gone = await t.request.get(`/api/ussd/debug/${d.sessionId}`).expect(404);
    expect(gone.body.code).toBe('session_not_found');
    expect((await t.request.get('/api/ussd/sessions').expect(200)).body.activeSessions).not.toContain(
      d.sessionId,
    );
    // The user dials again: the top menu, in a fresh session.
    expect(await d.dial()).toBe(top);
    const fresh = await t.request.get(`/api/ussd/debug/${d.sessionId}`).expect(200);
    expect(fresh.body.debugInfo.state).toBe('preMenu');
  });
});
