import { randomBytes } from 'node:crypto';
import { adminQuery } from '../../helpers/db.js';

/** The real PostgreSQL the USSD tests use: DATABASE_URL in CI, the machine's local server otherwise. */
export const TEST_POSTGRES_URL = process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/test';

export interface ThrowawayDatabase extends AsyncDisposable {
  /** Connection URL of the new, empty database. */
  url: string;
  drop(): Promise<void>;
}

const admin = (text: string): Promise<void> => adminQuery(TEST_POSTGRES_URL, text);

/**
 * A new empty database on the real PostgreSQL server, dropped (with its connections) on dispose. A whole
 * database rather than a schema, so code that opens it by URL (a child process, startServer) needs nothing
 * special, and its migrations see no other test's tables.
 */
export async function createThrowawayDatabase(label: string): Promise<ThrowawayDatabase> {
  const name = `${label}_${randomBytes(5).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  const drop = () => admin(`drop database if exists ${name} with (force)`);
  return { url: url.toString(), drop, [Symbol.asyncDispose]: drop };
}
