/**
 * The small part of Markdown that chat models use in short answers — paragraphs, "-"/"1." lists, **bold**,
 * `code` and ``` fenced blocks (a command to run, a colour list) — parsed into plain data that the feed renders
 * as elements (never as HTML, so nothing is injected).
 */

export interface Span {
  readonly text: string;
  readonly bold?: boolean;
  readonly code?: boolean;
}

export type Block =
  | { readonly kind: 'paragraph'; readonly lines: readonly (readonly Span[])[] }
  | { readonly kind: 'list'; readonly ordered: boolean; readonly items: readonly (readonly Span[])[] }
  /** A fenced block's lines as they were written (no Markdown inside); an unclosed fence runs to the end. */
  | { readonly kind: 'code'; readonly text: string };

/** `**bold**` and `` `code` `` inside a line; unmatched markers stay as they are. */
export function spans(line: string): Span[] {
  const out: Span[] = [];
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`/g;
  let at = 0;
  for (const m of line.matchAll(pattern)) {
    if (m.index > at) out.push({ text: line.slice(at, m.index) });
    out.push(m[1] !== undefined ? { text: m[1], bold: true } : { text: m[2]!, code: true });
    at = m.index + m[0].length;
  }
  if (at < line.length) out.push({ text: line.slice(at) });
  return out;
}

const BULLET = /^\s*[-*•]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)、]\s*(.*)$/;
const FENCE = /^\s*(```|~~~)/;

export function blocks(text: string): Block[] {
  const out: Block[] = [];
  let paragraph: Span[][] = [];
  let list: { ordered: boolean; items: Span[][] } | null = null;
  const flush = () => {
    if (paragraph.length) out.push({ kind: 'paragraph', lines: paragraph });
    if (list) out.push({ kind: 'list', ordered: list.ordered, items: list.items });
    paragraph = [];
    list = null;
  };
  let code: { fence: string; lines: string[] } | null = null;
  for (const raw of text.split(/\r?\n/)) {
    if (code) {
      if (raw.trim() === code.fence) {
        out.push({ kind: 'code', text: code.lines.join('\n') });
        code = null;
      } else code.lines.push(raw);
      continue;
    }
    const fence = FENCE.exec(raw);
    if (fence) {
      flush();
      code = { fence: fence[1]!, lines: [] };
      continue;
    }
    const line = raw.replace(/^#{1,6}\s+/, '');
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    const item = bullet ?? numbered;
    if (item) {
      const ordered = numbered !== null;
      if (paragraph.length || (list && list.ordered !== ordered)) flush();
      list ??= { ordered, items: [] };
      list.items.push(spans(item[1]!));
    } else if (line.trim() === '') {
      flush();
    } else {
      if (list) flush();
      paragraph.push(spans(line));
    }
  }
  flush();
  if (code) out.push({ kind: 'code', text: code.lines.join('\n') });
  return out;
}
