/**
 * Closest-name suggestions for unknown tools, layers, groups, documents and pieces, at a cost bounded
 * whatever the caller sends: a long requested name gets none, at most `SUGGEST_MAX_CANDIDATES` candidates are
 * scored, and the edit distance is only computed for candidates whose length could be within range.
 */

/** A requested name longer than this gets no suggestions (names are for people; typos are short). */
export const SUGGEST_MAX_LENGTH = 64;
/** Candidates scored at most, the first ones in the order given (the top of the layer stack first). */
export const SUGGEST_MAX_CANDIDATES = 2000;

/** Levenshtein distance between code-point arrays, or `bound + 1` as soon as it must exceed `bound`. */
function distanceWithin(a: readonly string[], b: readonly string[], bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > bound) return bound + 1;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * Up to `limit` candidates near `name`: containment first, then by edit distance within half the length.
 * Candidates longer than four times the longest suggestible name are only matched by containment.
 */
export function closest(name: string, candidates: Iterable<string>, limit = 3): string[] {
  if (name.length === 0 || name.length > SUGGEST_MAX_LENGTH) return [];
  const wanted = name.toLowerCase();
  const wantedPoints = [...wanted];
  const scored: { name: string; score: number }[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c)) continue;
    if (seen.size >= SUGGEST_MAX_CANDIDATES) break;
    seen.add(c);
    const lower = c.toLowerCase();
    if (lower.includes(wanted) || wanted.includes(lower)) {
      // One inside the other: the edit distance is exactly the difference in length.
      scored.push({ name: c, score: Math.abs([...lower].length - wantedPoints.length) / 10 });
      continue;
    }
    if (lower.length > 4 * SUGGEST_MAX_LENGTH) continue;
    const bound = Math.max(1, Math.floor(Math.max(wanted.length, lower.length) / 2));
    const d = distanceWithin(wantedPoints, [...lower], bound);
    if (d <= bound) scored.push({ name: c, score: d });
  }
  return scored
    .sort((a, b) => a.score - b.score)
    .slice(0, limit)
    .map((s) => s.name);
}
