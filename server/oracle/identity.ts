import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ed25519 } from '@ucanto/principal';
import type { Signer } from '@ucanto/interface';
import type { Logger } from '../logger.js';
import { oracleEntityDid, type OracleServiceConfig } from './config.js';

/** Who this oracle is: the DID tokens are addressed to, its on-chain entity, its key and name. */
export interface OracleIdentity {
  /** The DID tokens are addressed to (`ORACLE_DID`, else the did:key of the signing key). */
  did: string;
  /** The on-chain oracle entity; tokens addressed to it are accepted too. */
  entityDid: string | undefined;
  name: string;
  /** Signs as `did`. Never logged, never sent to a model. */
  signer: Signer;
  /** DIDs a token's audience may name. */
  audiences: ReadonlySet<string>;
}

/** File under DATA_DIR where a development server keeps the key it generated. */
const DEV_KEY_FILE = 'oracle-signing-key';

/**
 * Loads the oracle's identity. With ORACLE_SIGNING_KEY it parses that key; without it (development only:
 * production refuses to start, see ./config.ts) it reads the key a previous start generated under
 * DATA_DIR, or generates one and keeps it there (mode 0600), so tokens minted for this oracle survive a
 * restart.
 */
export async function loadOracleIdentity(
  config: OracleServiceConfig,
  logger: Logger,
): Promise<OracleIdentity> {
  const key = config.ORACLE_SIGNING_KEY ?? (await devKey(config.DATA_DIR, logger));
  let keySigner: ReturnType<typeof ed25519.parse>;
  try {
    keySigner = ed25519.parse(key);
  } catch {
    throw new Error(
      'ORACLE_SIGNING_KEY is not an Ed25519 key in ucanto form (base64 multibase starting with M); generate one with npm run oracle:key',
    );
  }
  const did = config.ORACLE_DID ?? keySigner.did();
  const signer = config.ORACLE_DID
    ? keySigner.withDID(config.ORACLE_DID as `did:${string}:${string}`)
    : keySigner;
  const entityDid = oracleEntityDid(config);
  return {
    did,
    entityDid,
    name: config.ORACLE_NAME,
    signer,
    audiences: new Set([did, ...(entityDid ? [entityDid] : [])]),
  };
}

async function devKey(dataDir: string, logger: Logger): Promise<string> {
  const file = path.join(dataDir, DEV_KEY_FILE);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const formatted = ed25519.format(await ed25519.generate());
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${formatted}\n`, { mode: 0o600, flag: 'wx' }).catch((err: unknown) => {
    // Another process generated it first: use theirs.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  });
  await chmod(file, 0o600);
  logger.info({ file }, 'oracle: generated a development signing key (set ORACLE_SIGNING_KEY in production)');
  return (await readFile(file, 'utf8')).trim();
}
