import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineMenusPart } from '../../helpers/fixture-menus.js';
import { startTestApp } from '../../helpers/app.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { ussdDialog } from '../../helpers/ussd-dialog.js';

// Issue 14 item 7: without PIN_ENCRYPTION_KEY a development server used a new random key per start, which
// locked everyone out after a restart.
let db: TestDb;
let dataDir: string;
beforeAll(async () => {
  [db, dataDir] = await Promise.all([openTestDb(), mkdtemp(path.join(tmpdir(), 'dev-pin-key-'))]);
});
afterAll(async () => {
  await db.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('development without PIN_ENCRYPTION_KEY', () => {
  it('a new random key per start locked everyone out after a restart: now the generated key is kept and the account logs in again', async () => {
    const env = {
      ENABLED_PARTS: 'ussd',
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      USSD_RATE_LIMIT_PER_MINUTE: '0',
      PIN_ENCRYPTION_KEY: '',
      REDIS_URL: '',
    };
    const phone = '+254700000201';
    let customerId: string | undefined;
    {
      await using first = await startTestApp({ db, env, parts: { ussd: engineMenusPart() } });
      const d = ussdDialog(first.request, { phoneNumber: phone });
      await d.dial();
      for (const input of ['2', '2', 'Jane Doe', '00', '13579']) await d.send(input);
      customerId = /customer ID is (C[A-Z0-9]{8})/.exec(await d.send('13579'))?.[1];
    }
    expect(customerId).toBeDefined();
    expect(await readdir(dataDir)).toContain('pin-encryption-key');
    await using second = await startTestApp({ db, env, parts: { ussd: engineMenusPart() } });
    const d = ussdDialog(second.request, { phoneNumber: phone });
    await d.dial();
    await d.send('2');
    expect(await d.send('1')).toContain(`Use account ${customerId}`);
    await d.send('1');
    expect(await d.send('13579')).toMatch(/^CON You are logged in\./);
  });
});
