import { isScalar } from 'yaml';
import { NAV_KEYS } from '../../lib/ussd/screen-layout.js';
import { nodeAt, type Location } from './locate.js';

const RESERVED: Record<string, string> = {
  [NAV_KEYS.back]: 'Back',
  [NAV_KEYS.skip]: 'Skip',
  [NAV_KEYS.more]: 'More',
  [NAV_KEYS.exit]: 'Exit',
};

/**
 * The key exactly as written (`00` stays `00`, where YAML would read the number 0), falling back to the
 * parsed value.
 */
export function writtenKey(loc: Location, parsed: string): string {
  const node = nodeAt(loc);
  return isScalar(node) && typeof node.source === 'string' ? node.source : parsed;
}

/** Why an option key cannot be used, or undefined when it can. */
export function keyProblem(key: string): string | undefined {
  const reserved = RESERVED[key];
  if (reserved !== undefined) return `key "${key}" is reserved for ${reserved}`;
  if (!/^[1-9][0-9]?$/.test(key)) return `key "${key}" must be a number from 1 to 99`;
  return undefined;
}
