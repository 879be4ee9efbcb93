/**
 * Closest-name suggestions for unknown tools, layers, groups, documents and pieces, at a cost bounded
 * whatever the caller sends: a long requested name gets none, at most `SUGGEST_MAX_CANDIDATES` candidates are
 * scored, and the edit distance is only computed for candidates whose length could be within range.
 */

/** A requested name longer than this gets no suggestions (names are for people; typos are short). */
export const SUGGEST_MAX_LENGTH = 64;
/** Candidates scored at most, the first ones in the order given (the top of the layer stack first). */
export const SUGGEST_MAX_CANDIDATES = 1000;
/** Candidates longer than this are matched by containment only (no edit distance). */
const SCORED_MAX_LENGTH = 4 * SUGGEST_MAX_LENGTH;

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const c of s) out.push(c.codePointAt(0)!);
  return out;
}

/**
 * Levenshtein distance between code-point arrays, or `bound + 1` as soon as it must exceed `bound`. Two
 * preallocated rows: at most SUGGEST_MAX_LENGTH × SCORED_MAX_LENGTH cells per candidate.
 */
function distanceWithin(
  a: readonly number[],
  b: readonly number[],
  bound: number,
  rows: Int32Array[],
): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  let prev = rows[0]!;
  let row = rows[1]!;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let best = i;
    const ai = a[i - 1];
    for (let j = 1; j <= b.length; j++) {
      const d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (ai === b[j - 1] ? 0 : 1));
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > bound) return bound + 1;
    [prev, row] = [row, prev];
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
  const wantedPoints = codePoints(wanted);
  const rows = [new Int32Array(SCORED_MAX_LENGTH + 1), new Int32Array(SCORED_MAX_LENGTH + 1)];
  const scored: { name: string; score: number }[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c)) continue;
    if (seen.size >= SUGGEST_MAX_CANDIDATES) break;
    seen.add(c);
    const lower = c.toLowerCase();
    if (lower.includes(wanted) || wanted.includes(lower)) {
      // One inside the other: the edit distance is exactly the difference in length.
      scored.push({ name: c, score: Math.abs(codePoints(lower).length - wantedPoints.length) / 10 });
      continue;
    }
    if (lower.length > SCORED_MAX_LENGTH) continue;
    const points = codePoints(lower);
    const bound = Math.max(1, Math.floor(Math.max(wantedPoints.length, points.length) / 2));
    const d = distanceWithin(wantedPoints, points, bound, rows);
    if (d <= bound) scored.push({ name: c, score: d });
  }
  return scored
    .sort((a, b) => a.score - b.score)
    .slice(0, limit)
    .map((s) => s.name);
}
