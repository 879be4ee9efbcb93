/** Closest-name suggestions for unknown tools, layers, groups and documents. */

function distance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let prev = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[y.length]!;
}

/** Up to `limit` candidates near `name`: containment first, then by edit distance within half the length. */
export function closest(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = name.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const c of new Set(candidates)) {
    const lower = c.toLowerCase();
    const d = distance(wanted, lower);
    const contains = lower.includes(wanted) || wanted.includes(lower);
    if (contains || d <= Math.max(1, Math.floor(Math.max(wanted.length, lower.length) / 2))) {
      scored.push({ name: c, score: contains ? d / 10 : d });
    }
  }
  return scored
    .sort((a, b) => a.score - b.score)
    .slice(0, limit)
    .map((s) => s.name);
}
