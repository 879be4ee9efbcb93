/**
 * Messages, hints and suggestions are written for a model and name tools by their API names (“用
 * list_all_layer_names 查看所有图层”). A designer knows the tools by their Chinese labels, as the palette and the
 * cards show them, so the studio shows such text with each tool name that the registry knows replaced by
 * 「its label」 — the English one in the English studio, as the palette and the card above show it there. Other
 * words (layer names, codes, file names) are left as they are.
 */
// Not inside a longer identifier or a path: no word character, dot, slash or hyphen before, none after (a dot
// ending a sentence is fine, one starting an extension is not).
const IDENTIFIER = /(?<![\w./\\-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/\\-]|\.\w)/g;

export function withToolLabels(
  text: string,
  tools: ReadonlyMap<string, { readonly label?: string; readonly labelEn?: string }>,
  lang: 'zh' | 'en' = 'zh',
): string {
  let out = '';
  let from = 0;
  for (const m of text.matchAll(IDENTIFIER)) {
    const tool = tools.get(m[0]);
    const label = (lang === 'en' ? tool?.labelEn : undefined) ?? tool?.label;
    if (!label) continue;
    let start = m.index;
    let end = start + m[0].length;
    // The spaces that set an ASCII name apart from Chinese are not wanted around 「」, which carry their own.
    if (text[start - 1] === ' ' && !/\w/.test(text[start - 2] ?? 'a')) start--;
    if (text[end] === ' ' && !/\w/.test(text[end + 1] ?? 'a')) end++;
    out += `${text.slice(from, Math.max(from, start))}「${label}」`;
    from = end;
  }
  return out + text.slice(from);
}
