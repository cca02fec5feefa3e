/**
 * True for a PIN that is easy to guess: at most two different digits (11111, 12121, 11222) or a run up
 * or down, also across 9-0 (12345, 54321, 01234, 98765, 89012).
 */
export function isWeakPin(pin: string): boolean {
  const digits = [...pin].map(Number);
  if (new Set(digits).size <= 2) return true;
  const steps = digits.slice(1).map((d, i) => (d - (digits[i] ?? 0) + 10) % 10);
  return steps.every((s) => s === 1) || steps.every((s) => s === 9);
}
