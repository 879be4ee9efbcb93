/**
 * The toolbox's search: the tools whose label (in either language) or API name holds the query, best first, as a
 * designer expects of a search box — the tool called exactly that (色阶 before 自动色阶), then those whose label
 * starts with it, then those whose label holds it, then those found only by their other-language label or
 * their API name. Ties keep the registry's order.
 */
import type { Lang } from '../i18n.js';

export interface Searchable {
  readonly name: string;
  readonly label: string;
  readonly labelEn: string;
}

/** How well `text` matches `q` (both lower-case): 0 exactly, 1 at its start, 2 inside it, undefined not at all. */
function closeness(text: string, q: string): number | undefined {
  const t = text.toLowerCase();
  if (t === q) return 0;
  if (t.startsWith(q)) return 1;
  return t.includes(q) ? 2 : undefined;
}

/** The tools matching `query`, best first; every tool, in its order, for an empty query. */
export function searchTools<T extends Searchable>(tools: readonly T[], query: string, lang: Lang): T[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...tools];
  const ranked: { tool: T; rank: number; at: number }[] = [];
  tools.forEach((tool, at) => {
    const shown = closeness(lang === 'en' ? tool.labelEn : tool.label, q);
    const others = [lang === 'en' ? tool.label : tool.labelEn, tool.name]
      .map((text) => closeness(text, q))
      .filter((c) => c !== undefined);
    // The label the designer reads counts first; a match of the other words only after all of its matches.
    const rank = shown ?? (others.length > 0 ? 3 + Math.min(...others) : undefined);
    if (rank !== undefined) ranked.push({ tool, rank, at });
  });
  return ranked.sort((a, b) => a.rank - b.rank || a.at - b.at).map((r) => r.tool);
}
