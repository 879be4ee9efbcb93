/**
 * The type tool's box for words in several styles (a headline whose price is larger and red): a contenteditable
 * element (plain text only) whose stretches are spans in each one's size, colour, font and faux styles, so the words
 * are typed as they will be drawn. What is typed into a stretch takes its style, as Photoshop's type tool gives new
 * characters the style of those beside them; the server keeps the styles of the characters the new words keep
 * (set_text_content). The words and the characters selected are read back as a textarea gives them (TextField), so
 * the rest of the type tool need not know which box it has.
 */
import {
  FAUX_BOLD_EM,
  SUBSCRIPT_POSITION,
  SUBSCRIPT_SIZE,
  SUPERSCRIPT_POSITION,
  SUPERSCRIPT_SIZE,
  twinFace,
  twinOf,
} from '../../registry/tools/text-params.js';
import type { TextEdit } from './TextTool.js';

/** What the type tool reads of its box: a textarea, or a StyledWords box through its adapter. */
export interface TextField {
  readonly value: string;
  readonly selectionStart: number;
  readonly selectionEnd: number;
}

/** A stretch of the words and its look (TextNode's `styles`). */
export type WordStyle = NonNullable<TextEdit['styles']>[number];

/** The bundled font's weights by the word their family name ends in, as CSS weights. */
const BUNDLED_WEIGHTS: Record<string, number> = { Light: 300, DemiLight: 350, Medium: 500, Bold: 700 };

/**
 * How the box shows `font`: a bundled weight as the page's bundled font at that weight, another by its name, then by
 * the free twin the server draws it with when it is missing (METRIC_TWINS: Arial's Liberation Sans, Arial-BoldMT's
 * Liberation Sans at its bold weight…).
 */
export function previewFont(font: string | null): {
  fontFamily?: string;
  fontWeight?: number;
  fontStyle?: 'italic';
} {
  if (!font) return {};
  const weight = /^Noto Sans SC (\w+)$/.exec(font)?.[1];
  if (weight && BUNDLED_WEIGHTS[weight]) return { fontWeight: BUNDLED_WEIGHTS[weight] };
  const twin = twinOf(font);
  const face = twin ? twinFace(twin) : undefined;
  const names = [font.replace(/["\\]/g, ''), ...(face ? [face.family] : [])].map((n) => `"${n}"`);
  return {
    fontFamily: `${names.join(', ')}, "Noto Sans SC", sans-serif`,
    ...(face?.bold ? { fontWeight: 700 } : {}),
    ...(face?.italic ? { fontStyle: 'italic' as const } : {}),
  };
}

/** Superscript and subscript as the server draws them: size and rise, in ems. */
const POSITIONED = {
  superscript: { size: SUPERSCRIPT_SIZE, rise: SUPERSCRIPT_POSITION },
  subscript: { size: SUBSCRIPT_SIZE, rise: -SUBSCRIPT_POSITION },
};

/**
 * Sets `span` to show `style` at `zoom` (faux bold as a stroke FAUX_BOLD_EM wide, each character that much wider, as
 * the server sets it), with its
 * tracking, kerning, baseline shift, superscript or subscript, small caps and all caps (shown only: wordsOf reads the words as
 * typed). The glyphs' scales are drawn by the server only: CSS cannot stretch a stretch of inline words. In a column
 * (`vertical`, CSS vertical-rl, whose "raised" is to the right as the server's), the faux styles but faux bold are
 * left out, as the server draws a column.
 */
export function styleSpan(
  span: HTMLElement,
  style: Pick<WordStyle, 'size' | 'color' | 'font' | 'faux' | 'character'>,
  zoom: number,
  vertical = false,
) {
  const { fontFamily, fontWeight, fontStyle } = previewFont(style.font);
  const s = span.style;
  const c = style.character ?? {};
  const positioned = c.position ? POSITIONED[c.position] : { size: 1, rise: 0 };
  s.fontSize = `${style.size * positioned.size * zoom}px`;
  s.color = style.color;
  s.fontFamily = fontFamily ?? '';
  s.fontWeight = fontWeight ? String(fontWeight) : '';
  // Manual kerning is space before each character: the letter spacing after each, the stretch set off by one
  // kerning and ending one short (as the server sets it; the ems are the stretch's own here).
  const kern = ((c.kerning ?? 0) / 1000) * style.size * zoom;
  const bold = style.faux?.includes('faux_bold') ? FAUX_BOLD_EM * style.size * zoom : 0;
  const spacing = ((c.tracking ?? 0) / 1000) * style.size * zoom + kern + bold;
  s.letterSpacing = spacing !== 0 ? `${spacing}px` : '';
  s.marginInlineStart = kern !== 0 ? `${kern}px` : '';
  s.marginInlineEnd = kern !== 0 ? `${-kern}px` : '';
  const rise = positioned.rise * style.size + (c.baseline_shift ?? 0);
  s.verticalAlign = rise !== 0 ? `${rise * zoom}px` : '';
  // Raised or lowered words do not make their line taller (the server keeps the line's leading, as Photoshop).
  s.lineHeight = rise !== 0 ? '0' : '';
  s.fontVariantCaps = c.caps === 'small_caps' ? 'small-caps' : '';
  s.textTransform = c.caps === 'all_caps' ? 'uppercase' : '';
  // Half-width characters upright in a column (Photoshop's Standard Vertical Roman Alignment off).
  s.textOrientation = vertical && c.upright_roman ? 'upright' : '';
  const faux = new Set(vertical ? style.faux?.filter((f) => f === 'faux_bold') : style.faux);
  // A twin's italic face, or faux italic's slant.
  s.fontStyle = fontStyle ?? (faux.has('faux_italic') ? 'italic' : '');
  s.textDecorationLine = [
    faux.has('underline') ? 'underline' : '',
    faux.has('strikethrough') ? 'line-through' : '',
  ]
    .filter(Boolean)
    .join(' ');
  s.setProperty(
    '-webkit-text-stroke',
    faux.has('faux_bold') ? `${style.size * zoom * FAUX_BOLD_EM}px ${style.color}` : '',
  );
}

/** Fills `box` with a span per stretch of `content`, each in its style. */
export function fillStyled(
  box: HTMLElement,
  content: string,
  styles: readonly WordStyle[],
  zoom: number,
  vertical = false,
): void {
  let at = 0;
  const spans = styles.map((style) => {
    const span = document.createElement('span');
    span.textContent = content.slice(at, at + style.length);
    at += style.length;
    // Its style kept on it, for a change of zoom or of the whole text (and copied to a span the browser splits off).
    span.dataset.style = JSON.stringify(style);
    styleSpan(span, style, zoom, vertical);
    return span;
  });
  box.replaceChildren(...spans);
}

/**
 * The words in `box` as typed, line breaks as `\n`: its text, a `<br>` or a new block as a break (a last `<br>`
 * only holds an empty last line open). Read from the nodes, not `innerText`, which would give a stretch shown in
 * capitals (all caps) back in capitals.
 */
export function wordsOf(box: HTMLElement): string {
  let out = '';
  const walk = (node: Node, first: boolean) => {
    if (node.nodeType === Node.TEXT_NODE) {
      out += (node as Text).data;
      return;
    }
    if (!(node instanceof HTMLElement)) return;
    if (node.tagName === 'BR') {
      out += '\n';
      return;
    }
    if (!first && (node.tagName === 'DIV' || node.tagName === 'P') && !out.endsWith('\n')) out += '\n';
    node.childNodes.forEach((child, i) => {
      walk(child, first && i === 0);
    });
  };
  box.childNodes.forEach((child, i) => {
    walk(child, i === 0);
  });
  // A last <br> holds the caret on an empty last line: it is no line of its own.
  const last = box.lastChild;
  const trailing = last instanceof HTMLElement && last.tagName === 'BR' && out.endsWith('\n\n');
  return (trailing ? out.slice(0, -1) : out).replace(/\r\n?/g, '\n');
}

/** Where the selection in `box` starts and ends, in characters of its words; undefined when it is not in it. */
export function selectionIn(box: HTMLElement): [number, number] | undefined {
  const sel = box.ownerDocument.getSelection();
  if (!sel || sel.rangeCount === 0) return undefined;
  const range = sel.getRangeAt(0);
  if (!box.contains(range.startContainer) || !box.contains(range.endContainer)) return undefined;
  const before = box.ownerDocument.createRange();
  before.selectNodeContents(box);
  before.setEnd(range.startContainer, range.startOffset);
  const start = before.toString().length;
  return [start, start + range.toString().length];
}

/** Selects all the words in `box`. */
export function selectAll(box: HTMLElement): void {
  const sel = box.ownerDocument.getSelection();
  if (!sel) return;
  const range = box.ownerDocument.createRange();
  range.selectNodeContents(box);
  sel.removeAllRanges();
  sel.addRange(range);
}
