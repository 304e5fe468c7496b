/**
 * "Did you mean …?" for mistyped command, option and data type names.
 *
 * @module
 */

/** Edits (insert, delete, substitute, swap two neighbours) between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[rows - 1][cols - 1];
}

/**
 * The candidate closest to `word` (case-insensitive), when it is close enough
 * to be a likely typo: at most one edit per four characters (at least one),
 * or `word` is the start of exactly one candidate. `undefined` otherwise.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  if (w === "") return undefined;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const distance = editDistance(w, c.toLowerCase());
    if (distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  if (best !== undefined && bestDistance <= Math.max(1, Math.floor(w.length / 4))) return best;
  const starts = candidates.filter((c) => c.toLowerCase().startsWith(w));
  return starts.length === 1 ? starts[0] : undefined;
}

/**
 * ` (did you mean "X"?)` for the likely intended candidate, or "" when there
 * is none. `aliases` maps other names people use (`cp`, numpy's `f8`) to one
 * of the candidates.
 */
export function didYouMean(
  word: string,
  candidates: readonly string[],
  quote = '"',
  aliases: Readonly<Record<string, string>> = {},
): string {
  const alias = Object.hasOwn(aliases, word.toLowerCase())
    ? aliases[word.toLowerCase()]
    : undefined;
  const match =
    alias !== undefined && candidates.includes(alias) ? alias : closest(word, candidates);
  return match === undefined ? "" : ` (did you mean ${quote}${match}${quote}?)`;
}
