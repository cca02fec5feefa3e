import { parseUnlockArgs, UNLOCK_USAGE, unlockCustomer } from './lib/ussd-unlock-command.js';

/**
 * `npm run ussd:unlock -- C7K2M9Q4X [--operator alice]`: lifts a PIN lock (operator action, audit-logged) on
 * the database of the server's configuration (`.env` read as `npm start` reads it). Exit codes
 * (docs/ussd-gateway.md): 0 unlocked or nothing to do, 1 no such customer, 2 usage error, 3 it could not
 * work (the configuration is refused, the database cannot be reached or is not migrated).
 */
const args = parseUnlockArgs(process.argv.slice(2), process.env['USER'] ?? 'operator');
if ('error' in args) {
  if (args.error !== '') console.error(`Error: ${args.error}\n`);
  console.error(UNLOCK_USAGE);
  process.exit(2);
}
// The server's modules are loaded once the arguments are known good, so a usage error answers at once.
const [
  { openDb, pendingMigrations },
  { createLogger },
  { createAccountService },
  { createPinCrypto, scryptCost },
  { loadPinKeyring },
  { describeToolConfig, loadToolConfig },
] = await Promise.all([
  import('../../server/db/index.js'),
  import('../../server/logger.js'),
  import('../../server/ussd/accounts/account-service.js'),
  import('../../server/ussd/crypto/pin-crypto.js'),
  import('../../server/ussd/crypto/pin-keys.js'),
  import('./lib/tool-config.js'),
]);

/** Exit code when the tool could not do its work at all (not "no such customer"). */
const CANNOT_WORK = 3;

try {
  const tool = loadToolConfig();
  console.log(describeToolConfig(tool));
  const db = await openDb(tool.target);
  try {
    const pending = await pendingMigrations(db);
    if (pending.length > 0) {
      console.error(
        `The database has ${pending.length} migration(s) pending (${pending.join(', ')}): is this the server's database? Run \`npm run db:migrate\` (or start the server) first.`,
      );
      process.exitCode = CANNOT_WORK;
    } else {
      const keyring = loadPinKeyring(tool.config, createLogger('error'));
      const pinCrypto = createPinCrypto(keyring, scryptCost(tool.config.PIN_SCRYPT_LOG2N));
      const outcome = await unlockCustomer(
        createAccountService(db, pinCrypto),
        args.customerId,
        args.operator,
      );
      console.log(outcome.message);
      process.exitCode = outcome.exitCode;
    }
  } finally {
    await db.close();
  }
} catch (err) {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  console.error(`ussd:unlock could not work: ${err instanceof Error ? err.message : String(err)}${cause}`);
  process.exitCode = CANNOT_WORK;
}
