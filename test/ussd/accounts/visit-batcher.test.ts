import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../server/db/index.js';
import { createLogger } from '../../../server/logger.js';
import { createVisitBatcher } from '../../../server/ussd/accounts/visit-batcher.js';
import { startTestApp } from '../../helpers/app.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';

const visitsOf = async (db: Db, phone: string): Promise<number | undefined> =>
  (
    await db.kysely
      .selectFrom('phones')
      .select('visit_count')
      .where('phone_number', '=', phone)
      .executeTakeFirst()
  )?.visit_count;

describe('phone visits written behind', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(() => db.close());

  it('counts in memory and writes every phone in one flush, adding to existing counts', async () => {
    const visits = createVisitBatcher(db, createLogger('silent'), 60_000);
    await visits.record('+254700000101');
    await visits.record('+254700000101');
    await visits.record('+254700000102');
    expect(await visitsOf(db, '+254700000101')).toBeUndefined();
    await visits.flush();
    expect(await visitsOf(db, '+254700000101')).toBe(2);
    expect(await visitsOf(db, '+254700000102')).toBe(1);
    await visits.record('+254700000101');
    await visits.close();
    expect(await visitsOf(db, '+254700000101')).toBe(3);
  });

  it('writes a batch of 40,000 phones in one flush (beyond the 65,535 parameters of a VALUES list)', async () => {
    const visits = createVisitBatcher(db, createLogger('silent'), 60_000);
    const phones = Array.from({ length: 40_000 }, (_, i) => `+25471${String(i).padStart(7, '0')}`);
    for (const phone of phones) await visits.record(phone);
    await visits.record(phones[0] as string);
    await visits.flush();
    const { count } = await db.kysely
      .selectFrom('phones')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('phone_number', 'like', '+25471%')
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(40_000);
    expect(await visitsOf(db, phones[0] as string)).toBe(2);
    expect(await visitsOf(db, phones[39_999] as string)).toBe(1);
    await visits.close();
  });

  it('flushes on its own within the interval', async () => {
    const visits = createVisitBatcher(db, createLogger('silent'), 50);
    await visits.record('+254700000103');
    await expect.poll(() => visitsOf(db, '+254700000103'), { timeout: 2000 }).toBe(1);
    await visits.close();
  });

  it('logs and drops a batch the database refuses, and keeps working', async () => {
    const broken = await openTestDb();
    await broken.close();
    const visits = createVisitBatcher(broken, createLogger('silent'), 60_000);
    await visits.record('+254700000104');
    await expect(visits.flush()).resolves.toBeUndefined();
    await visits.close();
  });
});

describe('the USSD part records one visit per session, written behind', () => {
  it('has the counts in the database once the part closes', async () => {
    const app = await startTestApp({ env: { ENABLED_PARTS: 'ussd', REDIS_URL: '' } });
    const phoneNumber = '+254700000105';
    const dial = (sessionId: string) =>
      app.request
        .post('/api/ussd')
        .send({ sessionId, serviceCode: '*384*123#', phoneNumber, text: '' })
        .expect(200);
    await dial('visit-a');
    await dial('visit-b');
    await app.server.close();
    expect(await visitsOf(app.db, phoneNumber)).toBe(2);
    await app.db.close();
  });
});
