/**
 * A text layer's paragraph settings (TextSpec's `justification` and `box`, model.ts) and the line layout they ask
 * for, as Photoshop sets text:
 *
 * - **Justification** (the paragraph panel's alignment). Point text is aligned about its anchor: the first
 *   baseline starts (left), is centred (center) or ends (right) at the PSD transform's origin. Paragraph text is
 *   aligned within its box; the justify-* settings spread every line but a paragraph's last one to the box's
 *   width (between words, or between characters where a line has no spaces, as Chinese), the last line aligned
 *   as the setting's name says (justify-all spreads it too).
 * - **Box** (paragraph text, ag-psd's `shapeType: 'box'`): the box, `[left, top, right, bottom]` in the text's own
 *   space relative to the PSD transform's origin, as the file states it (`boxBounds`). Lines wrap to its width
 *   (between words, or between any two Chinese characters, never putting closing punctuation at a line's start
 *   nor opening punctuation at its end, Photoshop's hard kinsoku set) and a line that no longer fits its height
 *   is not drawn, as Photoshop hides overflowing text.
 *
 * - **Indent** (the paragraph panel's indents, the same for every paragraph): lines start `left` in from the box's
 *   left edge and end `right` in from its right edge, and each paragraph's first line starts `first` further in
 *   (Chinese body text is often set with a first-line indent of two characters). Point text is aligned about its
 *   anchor as if within a box of no width: left-aligned lines start `left` (+ `first`) after it, right-aligned ones
 *   end `right` before it.
 * - **Space before and after** (the same for every paragraph): between two paragraphs, the first's space after and
 *   the second's space before are added to the leading. Nothing is added above the first paragraph (Adobe's text
 *   engine adds no space before a paragraph at the top of its text) nor below the last, where it would move no ink.
 *
 * Every engine path copies a spec by spreading it, so both survive moves, scales, edits, colour conversion,
 * history and the session's state files. Absent means left-aligned point text, what create_text_layer makes.
 */
import { JUSTIFICATIONS, MAX_INDENT } from '../registry/tools/text-params.js';
import type { Justification, ParagraphSettings, TextBox, TextIndent, TextSpace, TextSpec } from './model.js';

export type { Justification, ParagraphSettings, TextBox, TextIndent, TextSpace };

export function isJustification(v: unknown): v is Justification {
  return typeof v === 'string' && (JUSTIFICATIONS as readonly string[]).includes(v);
}

/** Whether `b` is a box text can be set in: four finite numbers, a positive width and height. */
export function isTextBox(b: unknown): b is TextBox {
  return (
    Array.isArray(b) &&
    b.length === 4 &&
    b.every((v) => typeof v === 'number' && Number.isFinite(v)) &&
    b[2] > b[0] &&
    b[3] > b[1]
  );
}

/** Whether `v` is an indent that moves anything: finite numbers within Photoshop's range, not all zero. */
export function isTextIndent(v: unknown): v is TextIndent {
  if (typeof v !== 'object' || v === null) return false;
  const { left, first, right } = v as Record<string, unknown>;
  const values = [left, first, right];
  return (
    values.every((n) => typeof n === 'number' && Number.isFinite(n) && Math.abs(n) <= MAX_INDENT) &&
    values.some((n) => n !== 0)
  );
}

/** Whether `v` is paragraph space that moves anything: finite numbers within Photoshop's range, not both zero. */
export function isTextSpace(v: unknown): v is TextSpace {
  if (typeof v !== 'object' || v === null) return false;
  const { before, after } = v as Record<string, unknown>;
  const values = [before, after];
  return (
    values.every((n) => typeof n === 'number' && Number.isFinite(n) && Math.abs(n) <= MAX_INDENT) &&
    values.some((n) => n !== 0)
  );
}

/** The paragraph settings `spec` carries (none: left-aligned point text without indents or paragraph space). */
export function paragraphOf(spec: TextSpec): Pick<TextSpec, 'justification' | 'box' | 'indent' | 'space'> {
  const { justification, box, indent, space } = spec;
  return {
    ...(isJustification(justification) && justification !== 'left' ? { justification } : {}),
    ...(isTextBox(box) ? { box } : {}),
    ...(isTextIndent(indent)
      ? { indent: { left: indent.left, first: indent.first, right: indent.right } }
      : {}),
    ...(isTextSpace(space) ? { space: { before: space.before, after: space.after } } : {}),
  };
}

/** Pixels added between a paragraph's last line and the next one's first (beyond the leading). */
export function paragraphGap(above: TextSpace | undefined, below: TextSpace | undefined): number {
  return (above?.after ?? 0) + (below?.before ?? 0);
}

/** `p` with only the settings that move anything, as paragraphOf keeps them. */
function settingsOf(p: ParagraphSettings): ParagraphSettings {
  const { justification, indent, space } = paragraphOf({ ...p } as TextSpec);
  return {
    ...(justification ? { justification } : {}),
    ...(indent ? { indent } : {}),
    ...(space ? { space } : {}),
  };
}

const sameSettings = (p: ParagraphSettings, q: ParagraphSettings) =>
  JSON.stringify(settingsOf(p)) === JSON.stringify(settingsOf(q));

/**
 * The settings of paragraph `k` (0 first): its own where the text's paragraphs differ (a paragraph past the list
 * takes the last entry's), else the text's.
 */
export function paragraphAt(spec: TextSpec, k: number): ParagraphSettings {
  const list = spec.paragraphs;
  if (!list || list.length === 0) return settingsOf(spec);
  return settingsOf(list[Math.min(k, list.length - 1)]!);
}

/**
 * `spec` with its paragraphs set so, one entry per paragraph: where they all agree, the text's own settings
 * (and no list); else the list, with the text's own settings those of its first paragraph.
 */
export function withParagraphs(spec: TextSpec, list: readonly ParagraphSettings[]): TextSpec {
  const { justification: _j, indent: _i, space: _s, paragraphs: _p, ...rest } = spec;
  const kept = list.map(settingsOf);
  const first = kept[0] ?? settingsOf(spec);
  const differ = kept.some((p) => !sameSettings(p, first));
  return { ...rest, ...first, ...(differ ? { paragraphs: kept } : {}) };
}

/** Every paragraph's settings, one per paragraph of `spec`'s content. */
export function paragraphList(spec: TextSpec): ParagraphSettings[] {
  const count = spec.content.split(/\r\n|\r|\n/).length;
  return Array.from({ length: count }, (_, k) => paragraphAt(spec, k));
}

/** Whether two specs carry the same paragraph settings. */
export function sameParagraph(a: TextSpec, b: TextSpec): boolean {
  const p = paragraphOf(a);
  const q = paragraphOf(b);
  return (
    (p.justification ?? 'left') === (q.justification ?? 'left') &&
    JSON.stringify(p.box ?? null) === JSON.stringify(q.box ?? null) &&
    JSON.stringify(p.indent ?? null) === JSON.stringify(q.indent ?? null) &&
    JSON.stringify(p.space ?? null) === JSON.stringify(q.space ?? null) &&
    JSON.stringify((a.paragraphs ?? []).map(settingsOf)) ===
      JSON.stringify((b.paragraphs ?? []).map(settingsOf))
  );
}

/**
 * Where a line sits across, from the text's `x`: where its room starts and how wide it is (a box's width less the
 * indents; point text has a box of no width, so the room is negative and the line stands about `x`).
 */
export function lineRoom(
  boxWidth: number,
  indent: TextIndent | undefined,
  firstOfParagraph: boolean,
): { start: number; width: number } {
  const left = (indent?.left ?? 0) + (firstOfParagraph ? (indent?.first ?? 0) : 0);
  return { start: left, width: boxWidth - left - (indent?.right ?? 0) };
}

/** How one line sits: where its x refers to, and whether it is spread to the box's width. */
export type LineAlign = 'left' | 'center' | 'right' | 'spread';

/**
 * How a line is aligned under `j`: point text has no width to spread to (a justify-* setting aligns as its last
 * line would); a paragraph's last line of box text aligns as the setting names it, the others spread.
 */
export function lineAlign(j: Justification | undefined, box: boolean, lastOfParagraph: boolean): LineAlign {
  switch (j ?? 'left') {
    case 'left':
      return 'left';
    case 'center':
      return 'center';
    case 'right':
      return 'right';
    case 'justify-left':
      return box && !lastOfParagraph ? 'spread' : 'left';
    case 'justify-center':
      return box && !lastOfParagraph ? 'spread' : 'center';
    case 'justify-right':
      return box && !lastOfParagraph ? 'spread' : 'right';
    case 'justify-all':
      return box ? 'spread' : 'left';
  }
}

/**
 * Advance width of a string in the font being laid out; `at` is where the string starts (in the paragraph, or the
 * line, being measured), for text whose characters differ in style.
 */
export type Measure = (s: string, at: number) => number;

/** Photoshop's hard kinsoku set (what ag-psd writes as PhotoshopKinsokuHard): never at a line's start … */
const NO_START = new Set(
  '、。，．・：；？！ー―’”）〕］｝〉》」』】ヽヾゝゞ々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ゛゜?!)]},.:;℃℉¢％‰',
);
/** … and never at its end. */
const NO_END = new Set('‘“（〔［｛〈《「『【([{￥＄£＠§〒＃');

/** Characters that may break on either side of themselves: Han, kana, CJK punctuation and full-width forms. */
const CJK =
  /[\u2E80-\u2FFF\u3000-\u30FF\u3100-\u31FF\u3200-\u9FFF\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFFEF\u{20000}-\u{3FFFF}]/u;

const SPACE = /^[ \t]+$/;

/** A paragraph cut into what lines are made of: runs of spaces, single CJK characters, and words. */
function unitsOf(paragraph: string): string[] {
  const units: string[] = [];
  let word = '';
  let spaces = '';
  const flush = () => {
    if (word) units.push(word);
    if (spaces) units.push(spaces);
    word = '';
    spaces = '';
  };
  for (const ch of paragraph) {
    if (ch === ' ' || ch === '\t') {
      if (word) {
        units.push(word);
        word = '';
      }
      spaces += ch;
    } else if (CJK.test(ch)) {
      flush();
      units.push(ch);
    } else {
      if (spaces) {
        units.push(spaces);
        spaces = '';
      }
      word += ch;
    }
  }
  flush();
  return units;
}

function first(s: string): string {
  return String.fromCodePoint(s.codePointAt(0)!);
}

function last(s: string): string {
  const chars = [...s];
  return chars[chars.length - 1]!;
}

/** Whether a line may end before `units[i]` (i > 0). */
function canBreakBefore(units: readonly string[], i: number): boolean {
  const prev = units[i - 1]!;
  const cur = units[i]!;
  if (SPACE.test(cur)) return false; // spaces hang at the end of the line they follow
  if (NO_START.has(first(cur)) || NO_END.has(last(prev))) return false;
  if (SPACE.test(prev)) return true;
  return CJK.test(last(prev)) || CJK.test(first(cur));
}

/**
 * `paragraph` (no line breaks) broken into lines no wider than `lineWidth` (its first `firstWidth`), as Photoshop
 * sets paragraph text: at spaces (which hang at the end of their line and do not start the next) and between CJK
 * characters, never before closing nor after opening punctuation. A word wider than the box is cut between
 * characters; a line always holds at least one character.
 */
export function wrapParagraph(
  paragraph: string,
  lineWidth: number,
  measure: Measure,
  firstWidth = lineWidth,
): string[] {
  return wrapParagraphAt(paragraph, lineWidth, measure, firstWidth).map((line) => line.text);
}

/** A line of a wrapped paragraph and where it starts in the paragraph (UTF-16 code units). */
export interface WrappedLine {
  readonly text: string;
  readonly at: number;
}

/**
 * wrapParagraph's lines with where each starts, for text whose characters are measured by where they are (a
 * text in several styles): `measure` is given each string's start in the paragraph.
 */
export function wrapParagraphAt(
  paragraph: string,
  lineWidth: number,
  measure: Measure,
  firstWidth = lineWidth,
): WrappedLine[] {
  if (measure(paragraph.trimEnd(), 0) <= firstWidth) return [{ text: paragraph, at: 0 }];
  const units = unitsOf(paragraph);
  const starts: number[] = [];
  let offset = 0;
  for (const u of units) {
    starts.push(offset);
    offset += u.length;
  }
  const lines: WrappedLine[] = [];
  let i = 0;
  while (i < units.length) {
    if (lines.length > 0) while (i < units.length && SPACE.test(units[i]!)) i++;
    if (i >= units.length) break;
    // The first line's room differs by the first-line indent.
    const width = lines.length === 0 ? firstWidth : lineWidth;
    const start = i;
    const at = starts[start]!;
    let text = '';
    let lastBreak = -1;
    let j = start;
    let overflow = false;
    for (; j < units.length; j++) {
      if (j > start && canBreakBefore(units, j)) lastBreak = j;
      const next = text + units[j];
      if (measure(next.trimEnd(), at) > width) {
        overflow = true;
        break;
      }
      text = next;
    }
    if (!overflow) {
      lines.push({ text: text.trimEnd(), at });
      break;
    }
    if (j === start) {
      // A word wider than the box on its own: cut between characters (at least one per line).
      const chars = [...units[start]!];
      let fit = 1;
      while (fit < chars.length && measure(chars.slice(0, fit + 1).join(''), at) <= width) fit++;
      const cut = chars.slice(0, fit).join('');
      lines.push({ text: cut, at });
      const rest = chars.slice(fit).join('');
      if (rest === '') i = start + 1;
      else {
        units[start] = rest;
        starts[start] = at + cut.length;
      }
      continue;
    }
    // At the last place a line may end; where there is none, just before the overflow.
    const end = lastBreak > start ? lastBreak : j;
    lines.push({ text: units.slice(start, end).join('').trimEnd(), at });
    i = end;
  }
  return lines.length > 0 ? lines : [{ text: '', at: 0 }];
}

/** One piece of a spread line and its offset from the line's start. */
export interface LinePart {
  readonly text: string;
  readonly dx: number;
  /** Where the piece starts in the line (UTF-16 code units). */
  readonly at: number;
}

/**
 * `line` spread to `width`: the extra width shared between its runs of spaces, or, in a line of Chinese without
 * spaces, between its characters. Undefined when there is nothing to spread (a single word, no room to add): the
 * line then starts at the box's left edge.
 */
export function spreadLine(line: string, width: number, measure: Measure): LinePart[] | undefined {
  const natural = measure(line, 0);
  const extra = width - natural;
  if (!(extra > 0.01)) return undefined;
  const lead = line.length - line.trimStart().length;
  const body = line.slice(lead);
  const pieces = body.split(/([ \t]+)/);
  const gaps = pieces.filter((p, k) => k % 2 === 1 && p !== '').length;
  const parts: LinePart[] = [];
  if (gaps > 0) {
    let prefix = line.slice(0, lead);
    let seen = 0;
    pieces.forEach((p, k) => {
      if (k % 2 === 1) {
        seen++;
      } else if (p !== '') {
        parts.push({ text: p, dx: measure(prefix, 0) + (seen * extra) / gaps, at: prefix.length });
      }
      prefix += p;
    });
    return parts;
  }
  // Letters of a word are not spaced apart (Photoshop's letter spacing is 0 % by default); Chinese is set
  // character by character, so a line of it is spread between its characters.
  const chars = [...line];
  if (chars.length < 2 || !CJK.test(line)) return undefined;
  let prefix = '';
  chars.forEach((ch, k) => {
    parts.push({ text: ch, dx: measure(prefix, 0) + (k * extra) / (chars.length - 1), at: prefix.length });
    prefix += ch;
  });
  return parts;
}

/** A line to set: its words, where they start in the text, its place in its paragraph, its paragraph's settings. */
export interface TextRow {
  readonly text: string;
  readonly at: number;
  readonly first: boolean;
  readonly last: boolean;
  readonly paragraph: ParagraphSettings;
  /** Pixels added before it beyond the leading: the paragraph space above a paragraph's first line. */
  readonly gap: number;
}

/**
 * The lines `spec`'s paragraphs (each with where it starts in the text) are set in: paragraph text's wrapped to
 * `extent` (its box's width, or height for vertical columns) less each paragraph's indents, point text's one a
 * paragraph; `measure` is given a string and where it starts in the text.
 */
export function textRows(
  spec: TextSpec,
  paragraphs: readonly { text: string; at: number }[],
  measure: Measure,
  extent: number | undefined,
): TextRow[] {
  const rows: TextRow[] = [];
  let above: ParagraphSettings | undefined;
  for (const [k, paragraph] of paragraphs.entries()) {
    const settings = paragraphAt(spec, k);
    const { indent } = settings;
    const local = (s: string, at: number) => measure(s, paragraph.at + at);
    const wrapped =
      extent !== undefined
        ? wrapParagraphAt(
            paragraph.text,
            lineRoom(extent, indent, false).width,
            local,
            lineRoom(extent, indent, true).width,
          )
        : [{ text: paragraph.text, at: 0 }];
    wrapped.forEach((line, i) => {
      rows.push({
        text: line.text,
        at: paragraph.at + line.at,
        first: i === 0,
        last: i === wrapped.length - 1,
        paragraph: settings,
        gap: i === 0 && above ? paragraphGap(above.space, settings.space) : 0,
      });
    });
    above = settings;
  }
  return rows;
}
