import type { Migration } from 'kysely';
import * as m0001 from './0001-app-meta.js';
import * as m0002 from './0002-ussd-accounts.js';
import * as m0003 from './0003-oracle.js';
import * as m0004 from './0004-user-preferences.js';
import * as m0005 from './0005-memory.js';
import * as m0006 from './0006-credits.js';
import * as m0007 from './0007-rooms-and-payments.js';
import * as m0008 from './0008-payment-memos.js';
import * as m0009 from './0009-tool-approvals.js';

/**
 * Every migration, in order. Static imports (not a folder scan) so the list is checked by the compiler and
 * works the same under tsx, vitest and a bundle. Names sort in execution order; never rename one that shipped.
 */
export const migrations: Record<string, Migration> = {
  '0001-app-meta': m0001,
  '0002-ussd-accounts': m0002,
  '0003-oracle': m0003,
  '0004-user-preferences': m0004,
  '0005-memory': m0005,
  '0006-credits': m0006,
  '0007-rooms-and-payments': m0007,
  '0008-payment-memos': m0008,
  '0009-tool-approvals': m0009,
};
