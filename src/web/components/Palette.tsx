/**
 * Every tool of the registry, grouped and labelled as the registry says (in the UI's language), with a search
 * over its Chinese label, its English label and its API name, whose results are listed best first.
 */
import { useMemo, useState } from 'preact/hooks';
import { useStudioView } from '../context.js';
import { withoutEscapeNotes } from '../forms/field-kind.js';
import { labelIn } from '../i18n.js';
import { searchTools } from '../state/tool-search.js';
import { ToolForm } from './ToolForm.js';

export function Palette() {
  const { studio, t, lang, paletteTool, openTool } = useStudioView();
  const [query, setQuery] = useState('');
  const registry = studio.registry;
  const chosen = paletteTool ? studio.tools.get(paletteTool) : undefined;

  // Browsing, the tools in their groups; searching, one list of what was found, best first (see searchTools),
  // which the groups' order would scatter.
  const groups = useMemo(() => {
    if (!registry) return [];
    if (query.trim()) {
      const found = searchTools(registry.tools, query, lang);
      const results = { id: 'results', label: t('palette.results'), labelEn: t('palette.results') };
      return found.length > 0 ? [{ ...results, tools: found }] : [];
    }
    return registry.groups
      .map((g) => ({ ...g, tools: registry.tools.filter((tool) => tool.group === g.id) }))
      .filter((g) => g.tools.length > 0);
  }, [registry, query, lang, t]);

  // Labels two tools share (the spec gives align_layers and align_layers_tool the same Chinese one): their chips
  // show the tool's name too, so a designer can tell them apart. The English labels are all different.
  const shared = useMemo(() => {
    const seen = new Map<string, number>();
    for (const tool of registry?.tools ?? []) {
      const label = labelIn(tool, lang);
      seen.set(label, (seen.get(label) ?? 0) + 1);
    }
    return new Set([...seen].filter(([, n]) => n > 1).map(([label]) => label));
  }, [registry, lang]);

  if (chosen) return <ToolForm key={chosen.name} tool={chosen} onBack={() => openTool(null)} />;

  return (
    <div class="palette">
      <input
        type="search"
        class="palette-search"
        aria-label={t('palette.search')}
        placeholder={t('palette.searchPlaceholder')}
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
      />
      <fieldset class="palette-groups" aria-label={t('palette.tools')}>
        {groups.length === 0 && <p class="muted">{t('palette.none')}</p>}
        {groups.map((g) => (
          <section key={g.id} class="palette-group" aria-label={labelIn(g, lang)}>
            <h4>{labelIn(g, lang)}</h4>
            <div class="palette-tools">
              {g.tools.map((tool) => (
                <button
                  key={tool.name}
                  type="button"
                  class="tool-chip"
                  title={`${tool.name} — ${lang === 'en' ? `${tool.label} — ` : ''}${withoutEscapeNotes(tool.description)}`}
                  onClick={() => openTool(tool.name)}
                >
                  {labelIn(tool, lang)}
                  {shared.has(labelIn(tool, lang)) && <small class="chip-code">{tool.name}</small>}
                </button>
              ))}
            </div>
          </section>
        ))}
      </fieldset>
    </div>
  );
}
