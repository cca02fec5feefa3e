import { randomBytes } from 'node:crypto';
import { adminQuery } from '../../test/helpers/db.js';

/**
 * A new database named `<prefix>_<random>` on the PostgreSQL server of `serverUrl` (a connection URL of any
 * database there), for one run of a bench; `drop` removes it, connections and all.
 */
export async function freshDatabase(
  serverUrl: string,
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`),
  };
}
