import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ed25519 } from '@ucanto/principal';
import type { Signer } from '@ucanto/interface';
import { OracleConfig } from '../../contracts/oracle.js';

/** File under the data directory holding the development user's Ed25519 key (mode 0600). */
export const DEV_USER_KEY_FILE = 'dev-user-key';

/** The development user: a did:key whose key is generated once and kept under `dataDir`. Never for production. */
export async function loadDevUser(dataDir: string): Promise<Signer> {
  const file = path.join(dataDir, DEV_USER_KEY_FILE);
  try {
    return ed25519.parse((await readFile(file, 'utf8')).trim());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const signer = await ed25519.generate();
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${ed25519.format(signer)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return signer;
}

/** Reads a running oracle's public config; explains how to start one when nothing answers. */
export async function fetchOracleConfig(baseUrl: string): Promise<OracleConfig> {
  let response: Response;
  try {
    response = await fetch(new URL('/config', baseUrl));
  } catch {
    throw new Error(`No oracle answers at ${baseUrl}. Start one with \`npm start\` (or pass --url).`);
  }
  if (!response.ok)
    throw new Error(`${baseUrl}/config answered ${response.status}: is the oracle part enabled?`);
  return OracleConfig.parse(await response.json());
}
