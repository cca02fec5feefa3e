import { loadConfig } from '../../server/config.js';
import { openDb } from '../../server/db/index.js';
import { createLogger } from '../../server/logger.js';
import { dbTargetFromConfig } from '../../server/server.js';
import { createAccountService } from '../../server/ussd/accounts/account-service.js';
import { createPinCrypto } from '../../server/ussd/crypto/pin-crypto.js';
import { loadPinKeyring } from '../../server/ussd/crypto/pin-keys.js';
import { parseUnlockArgs, UNLOCK_USAGE, unlockCustomer } from './lib/ussd-unlock-command.js';

/** `npm run ussd:unlock -- C7K2M9Q4X [--operator alice]`: lifts a PIN lock (operator action, audit-logged). */
const args = parseUnlockArgs(process.argv.slice(2), process.env['USER'] ?? 'operator');
if ('error' in args) {
  if (args.error !== '') console.error(`Error: ${args.error}\n`);
  console.error(UNLOCK_USAGE);
  process.exit(2);
}
const config = loadConfig(process.env);
const db = await openDb(dbTargetFromConfig(config));
try {
  const pinCrypto = createPinCrypto(loadPinKeyring(config, createLogger('error')));
  const outcome = await unlockCustomer(createAccountService(db, pinCrypto), args.customerId, args.operator);
  console.log(outcome.message);
  process.exitCode = outcome.exitCode;
} finally {
  await db.close();
}
