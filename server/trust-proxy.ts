import { z } from 'zod';
import { isAddressOrCidr } from './env-values.js';

/**
 * Whom the app believes about `X-Forwarded-For` (Express's `trust proxy`): nobody (`false`), the nearest `n`
 * hops whoever they are (a number), or only connections from these addresses, CIDRs or range names.
 */
export type TrustProxy = false | number | string[];

/** The names Express's `trust proxy` accepts for well-known ranges (proxy-addr). */
const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY_ENABLED: `false`, a number of proxy hops (`true`: 1), or the proxies' addresses/CIDRs. */
export const trustProxy = z
  .string()
  .optional()
  .transform((v, ctx): TrustProxy => {
    const value = (v ?? '').trim();
    if (value === '' || value === 'false' || value === '0') return false;
    if (value === 'true') return 1;
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops <= 10) return hops;
    }
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = items.filter((i) => !TRUST_PROXY_NAMES.includes(i) && !isAddressOrCidr(i));
    if (bad.length === 0 && items.length > 0) return items;
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `false, a number of proxy hops (1 to 10), or the proxies' addresses or CIDRs (127.0.0.1,10.0.0.0/8; loopback); not ${JSON.stringify(bad.join(',') || value)}`,
    });
    return z.NEVER;
  });

/** TRUST_PROXY_ENABLED as the start-up line shows it. */
export function describeTrustProxy(value: TrustProxy): string {
  if (value === false) return 'off';
  if (typeof value === 'number') return `${value} hop${value === 1 ? '' : 's'} from any sender`;
  return value.join(',');
}
