/**
 * Edit distance between two names (insertions, deletions, substitutions and swaps of two neighbours all
 * cost 1), compared without regard to case: `pinConfim` is 1 from `pinConfirm`, `PINconfirm` 0.
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  // rows[i][j]: distance between the first i characters of s and the first j of t.
  const rows: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
    Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      rows[i]![j] = best;
    }
  }
  return at(s.length, t.length);
}

/**
 * The candidate `name` was most likely meant to be: the nearest one within 2 edits (1 for names of up to
 * 4 characters), ties to the first in code-unit order; undefined when none is that near.
 */
export function nearest(name: string, candidates: Iterable<string>): string | undefined {
  const limit = name.length <= 4 ? 1 : 2;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of [...new Set(candidates)].sort()) {
    if (candidate === name) continue;
    const distance = editDistance(name, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** ` (did you mean "x"?)` for the nearest candidate, or an empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const match = nearest(name, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
