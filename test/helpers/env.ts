/** The scrypt cost (log2 N) of PIN hashes in tests: cheap; production refuses less than 14 (server/config.ts). */
export const TEST_SCRYPT_LOG2N = 4;

/**
 * What every test app and test configuration runs with unless a test says otherwise: NODE_ENV=test, no
 * logs, and the cheap PIN hash of {@link TEST_SCRYPT_LOG2N}.
 */
export const TEST_ENV: Readonly<Record<string, string>> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  PIN_SCRYPT_LOG2N: String(TEST_SCRYPT_LOG2N),
};
