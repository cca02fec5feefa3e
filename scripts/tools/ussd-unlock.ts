import { parseUnlockArgs, UNLOCK_USAGE, unlockCustomer } from './lib/ussd-unlock-command.js';

/** `npm run ussd:unlock -- C7K2M9Q4X [--operator alice]`: lifts a PIN lock (operator action, audit-logged). */
const args = parseUnlockArgs(process.argv.slice(2), process.env['USER'] ?? 'operator');
if ('error' in args) {
  if (args.error !== '') console.error(`Error: ${args.error}\n`);
  console.error(UNLOCK_USAGE);
  process.exit(2);
}
// The server's modules are loaded once the arguments are known good, so a usage error answers at once.
const [
  { loadConfig },
  { openDb },
  { createLogger },
  { dbTargetFromConfig },
  { createAccountService },
  { createPinCrypto, scryptCost },
  { loadPinKeyring },
] = await Promise.all([
  import('../../server/config.js'),
  import('../../server/db/index.js'),
  import('../../server/logger.js'),
  import('../../server/db/target.js'),
  import('../../server/ussd/accounts/account-service.js'),
  import('../../server/ussd/crypto/pin-crypto.js'),
  import('../../server/ussd/crypto/pin-keys.js'),
]);
const config = loadConfig(process.env);
const db = await openDb(dbTargetFromConfig(config));
try {
  const keyring = loadPinKeyring(config, createLogger('error'));
  const pinCrypto = createPinCrypto(keyring, scryptCost(config.PIN_SCRYPT_LOG2N));
  const outcome = await unlockCustomer(createAccountService(db, pinCrypto), args.customerId, args.operator);
  console.log(outcome.message);
  process.exitCode = outcome.exitCode;
} finally {
  await db.close();
}
