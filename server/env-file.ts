import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Reads `.env` in the working directory into `process.env` when there is one, as .env.example promises;
 * variables already in the environment win (process.loadEnvFile never overrides them). `npm start` and every
 * operator tool call this, so a tool sees exactly the configuration the server sees. Returns the file's
 * absolute path when one was read.
 */
export function readDotEnv(cwd = process.cwd()): string | undefined {
  const file = path.resolve(cwd, '.env');
  if (!existsSync(file)) return undefined;
  // Node 20's loadEnvFile reports a file it may not read as ENOENT; this throws EACCES, naming the file.
  accessSync(file, constants.R_OK);
  process.loadEnvFile(file);
  return file;
}
