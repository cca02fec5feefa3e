/**
 * Code-unit order of strings: the same on every machine and in every locale, unlike `localeCompare`,
 * so generated files never depend on where they were generated. (`Array.prototype.sort()` without a
 * comparator uses this order too.)
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
