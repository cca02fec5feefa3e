import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger.js';
import { ussdDialog } from '../../helpers/ussd-dialog.js';
import type { UssdPart } from '../../../server/ussd/part.js';
import { engineMenusPart } from '../../helpers/fixture-menus.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

// PINs never appear in clear: not in any row of any table, not in the logs (captured at the most verbose
// level). Full phone numbers do not appear in the logs either (masked). Reference defect #9 stored PINs
// deterministically encrypted.
const PINS = ['97531', '86420', '75319'];
const PHONE = '+254733123987';

/** A PIN standing alone (not inside a longer run of digits, such as a timestamp or an id). */
const pinPattern = (pin: string): RegExp => new RegExp(`(?<![0-9])${pin}(?![0-9])`);

let t: TestApp;
let logs = '';
beforeAll(async () => {
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs += chunk.toString('utf8');
      done();
    },
  });
  t = await startTestApp({
    logger: createLogger('trace', capture),
    env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0' },
    parts: { ussd: engineMenusPart() },
  });

  // Create an account, log in with a wrong and then the right PIN, change the PIN, log in with the new one.
  const d = ussdDialog(t.request, { phoneNumber: PHONE });
  await d.dial();
  for (const input of ['2', '2', 'Secret Keeper', '00', '97531']) await d.send(input);
  expect(await d.send('97531')).toMatch(/C[0-9A-Z]{8}/);
  await d.send('1');
  await d.send('1');
  expect(await d.send('86420')).toMatch(/Wrong PIN/);
  await d.send('97531');
  await d.send('3');
  await d.send('2');
  await d.send('97531');
  await d.send('75319');
  expect(await d.send('75319')).toMatch(/^CON Your PIN has been changed/);
  const again = ussdDialog(t.request, { phoneNumber: PHONE });
  await again.dial();
  await again.send('2');
  await again.send('1');
  await again.send('1');
  expect(await again.send('75319')).toMatch(/^CON /);
  // A request that fails validation carries a PIN-like text too.
  await t.request
    .post('/api/ussd')
    .send({ sessionId: 'x', serviceCode: 'bad', phoneNumber: PHONE, text: '97531' });
}, 60_000);
afterAll(() => t.close());

describe('no PIN in clear', () => {
  it('in any row of any table', async () => {
    const k = t.ctx.db.kysely;
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(k);
    expect(tables.rows.map((r) => r.name)).toEqual(
      expect.arrayContaining(['customers', 'phones', 'audit_log']),
    );
    let rows = 0;
    for (const { name } of tables.rows) {
      const dump = await sql<{
        row: string;
      }>`select row_to_json(t)::text as row from ${sql.table(name)} t`.execute(k);
      for (const { row } of dump.rows) {
        rows++;
        for (const pin of PINS) expect(row, `${name}: ${row}`).not.toMatch(pinPattern(pin));
      }
    }
    expect(rows).toBeGreaterThan(5);
  });

  it('and equal PINs never give equal records', async () => {
    const phoneNumber = '+254733000111';
    const ids = await Promise.all(
      [1, 2].map(() =>
        t.part<UssdPart>('ussd').accounts.createCustomer({
          fullName: 'Same Pin',
          email: null,
          pin: '97531',
          phoneNumber,
          language: 'en',
        }),
      ),
    );
    const records = await t.ctx.db.kysely
      .selectFrom('customers')
      .select('pin_record')
      .where(
        'customer_id',
        'in',
        ids.map((r) => r.customerId),
      )
      .execute();
    expect(records).toHaveLength(2);
    expect(records[0]!.pin_record).not.toBe(records[1]!.pin_record);
    for (const { pin_record } of records) expect(pin_record).not.toMatch(pinPattern('97531'));
  });

  it('in the logs, where phone numbers are masked', () => {
    expect(logs.length).toBeGreaterThan(0);
    for (const pin of PINS) expect(logs).not.toMatch(pinPattern(pin));
    expect(logs).not.toContain(PHONE);
    expect(logs).not.toContain(PHONE.slice(1));
  });
});
