import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnlockArgs, unlockCustomer } from '../../../scripts/tools/lib/ussd-unlock-command.js';
import type { Db } from '../../../server/db/index.js';
import { createLogger } from '../../../server/logger.js';
import type { AccountService } from '../../../server/ussd/accounts/accounts.js';
import { createAccountService } from '../../../server/ussd/accounts/account-service.js';
import { createPinCrypto, scryptCost } from '../../../server/ussd/crypto/pin-crypto.js';
import { loadPinKeyring } from '../../../server/ussd/crypto/pin-keys.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../helpers/db.js';
import { TEST_ENV, TEST_SCRYPT_LOG2N } from '../../helpers/env.js';

// The operator's unlock procedure (docs/ussd-gateway.md): `npm run ussd:unlock -- <customerId>`, on
// a database of its own that the tool opens from its environment (PostgreSQL in CI, PGlite on disk here).
const run = promisify(execFile);
let database: ThrowawayDatabase;
const KEY = randomBytes(32).toString('base64');
let db: Db;
let accounts: AccountService;

async function lockedCustomer(): Promise<string> {
  const phoneNumber = '+254711000222';
  const { customerId } = await accounts.createCustomer({
    fullName: 'Locked Out',
    email: null,
    pin: '48213',
    phoneNumber,
    language: 'en',
  });
  for (const pin of ['11111', '22222', '33333']) await accounts.verifyPin(customerId, pin, phoneNumber);
  expect((await accounts.findByCustomerId(customerId))?.lockedAt).not.toBeNull();
  return customerId;
}

async function open(): Promise<void> {
  db = await database.open();
  const keyring = loadPinKeyring(
    { NODE_ENV: 'test', PIN_ENCRYPTION_KEY: KEY, PIN_ENCRYPTION_KEY_ID: 'k1', PIN_PREVIOUS_KEYS: undefined },
    createLogger('silent'),
  );
  accounts = createAccountService(db, createPinCrypto(keyring, scryptCost(TEST_SCRYPT_LOG2N)));
}

beforeAll(async () => {
  database = await createThrowawayDatabase('ussd_unlock');
  await open();
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

describe('parseUnlockArgs', () => {
  it('takes one customer id (any case) and an optional operator', () => {
    expect(parseUnlockArgs(['c7k2m9q4x'], 'me')).toEqual({ customerId: 'C7K2M9Q4X', operator: 'me' });
    expect(parseUnlockArgs(['--operator', 'alice', 'C7K2M9Q4X'], 'me')).toEqual({
      customerId: 'C7K2M9Q4X',
      operator: 'alice',
    });
  });

  it.each([
    [[], 'give exactly one customer ID'],
    [['C7K2M9Q4X', 'C8GGHT7SH'], 'give exactly one customer ID'],
    [['12345'], '"12345" is not a customer ID (C followed by 8 characters)'],
    [['C7K2M9Q4X', '--operator'], '--operator needs a name'],
    [['--help'], ''],
  ])('refuses %j', (argv, error) => {
    expect(parseUnlockArgs(argv, 'me')).toEqual({ error });
  });
});

describe('unlockCustomer', () => {
  it('unlocks a locked account, after which the right PIN works again', async () => {
    const customerId = await lockedCustomer();
    const outcome = await unlockCustomer(accounts, customerId, 'alice');
    expect(outcome.exitCode).toBe(0);
    expect(outcome.message).toMatch(
      new RegExp(`^Unlocked ${customerId} \\(locked since .+\\); audit-logged as alice\\.$`),
    );
    expect((await accounts.verifyPin(customerId, '48213', '+254711000222')).ok).toBe(true);
    expect(await unlockCustomer(accounts, customerId, 'alice')).toEqual({
      exitCode: 0,
      message: `${customerId} is not locked; nothing to do.`,
    });
    expect(await unlockCustomer(accounts, 'C22222222', 'alice')).toEqual({
      exitCode: 1,
      message: 'No customer C22222222.',
    });
  });
});

describe('npm run ussd:unlock', () => {
  const env = (extra: Record<string, string> = {}) => ({
    ...process.env,
    ...TEST_ENV,
    ...extra,
  });

  it('prints its usage and exits 2 without a customer id', async () => {
    const failed = await run(process.execPath, ['--import', 'tsx', 'scripts/tools/ussd-unlock.ts'], {
      env: env(),
    }).catch((err: unknown) => err);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain(
      'Usage: npm run ussd:unlock -- <customerId> [--operator <name>]',
    );
  });

  it('unlocks a customer in the configured database', async () => {
    const customerId = await lockedCustomer();
    // An embedded database is one process's at a time: let the tool have it, then open it again.
    if (database.exclusive) await db.close();
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/tools/ussd-unlock.ts', customerId, '--operator', 'bob'],
      { env: env({ ...database.env, PIN_ENCRYPTION_KEY: KEY }) },
    );
    if (database.exclusive) await open();
    // First the database it works on (test/platform/tools.test.ts), then the outcome.
    expect(stdout).toMatch(new RegExp(`^Database: .+\\nUnlocked ${customerId} .*audit-logged as bob\\.\\n$`));
    expect((await accounts.findByCustomerId(customerId))?.lockedAt).toBeNull();
    const audit = await db.kysely
      .selectFrom('audit_log')
      .select(['event', 'detail'])
      .where('customer_id', '=', customerId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit).toEqual({ event: 'account_unlocked', detail: { operator: 'bob' } });
  });
});
