/**
 * Vertical text (Photoshop's vertical type, 直排; TextSpec's `orientation`), laid out as Adobe's text engine sets
 * it by default:
 *
 * - Columns run top to bottom, the first on the right, each next one a leading to its left (auto leading: 120 % of
 *   the column's largest characters). Point text's first column stands on its anchor's vertical line, starting at
 *   the anchor (left alignment is "top" here, centre centres the column on the anchor, right ends it there);
 *   paragraph text's first column is its first line turned, hanging an ascent inside its box's right edge as a
 *   first line hangs below the top, and columns wrap at its bottom (the indents are from its top and bottom),
 *   columns past its left edge hidden.
 * - Chinese, kana, full-width forms and CJK punctuation stand upright, one em each, centred on the column's line;
 *   the punctuation in its vertical form (。 and ， in the cell's top right, brackets turned: Unicode's vertical
 *   presentation forms, which the bundled font draws), as the font's `vert` feature would give it (Skia's canvas
 *   cannot ask for it). Latin letters, digits and other half-width characters are turned a quarter clockwise
 *   (Photoshop's Standard Vertical Roman Alignment, on by default), their em box centred on the line (a Latin
 *   font's ascent and descent); each takes its own advance. Tracking is added after every character along the
 *   column, manual kerning before it. Turned Latin, in point and paragraph text and each alignment, stands within
 *   2 px of Photoshop's own renderings (text-photoshop.test.ts).
 * - The other character settings (text-character.ts) act in the line's frame, a vertical line being a horizontal
 *   one turned a quarter clockwise: a baseline shift, superscript or subscript moves characters right (positive) or
 *   left, as Adobe documents for its text engine's vertical text; the horizontal scale runs down the column, the
 *   vertical scale across it; small caps and all caps draw capitals (no rendering of Photoshop's was at hand to
 *   compare these in a column with).
 *
 * Each character is drawn on its own (a turned character as a piece with `turned`), so the layout says where every
 * one stands; the drawing and the ink box come from the same pieces as horizontal text's (text.ts).
 */
import type { SKRSContext2D } from '@napi-rs/canvas';
import type { Rect, TextSpec } from './model.js';
import { EMPTY_RECT, unionRect } from './raster.js';
import type { GlyphForm } from './text-character.js';
import { lineAlign, lineRoom, paragraphOf, spreadLine, textRows } from './text-paragraph.js';

/** Unicode's vertical presentation forms of the punctuation that changes shape or place in a column. */
const VERTICAL_FORMS: Record<string, string> = {
  '，': '\uFE10',
  '、': '\uFE11',
  '。': '\uFE12',
  '：': '\uFE13',
  '；': '\uFE14',
  '！': '\uFE15',
  '？': '\uFE16',
  '〖': '\uFE17',
  '〗': '\uFE18',
  '…': '\uFE19',
  '‥': '\uFE30',
  '—': '\uFE31',
  '–': '\uFE32',
  '（': '\uFE35',
  '）': '\uFE36',
  '｛': '\uFE37',
  '｝': '\uFE38',
  '〔': '\uFE39',
  '〕': '\uFE3A',
  '【': '\uFE3B',
  '】': '\uFE3C',
  '《': '\uFE3D',
  '》': '\uFE3E',
  '〈': '\uFE3F',
  '〉': '\uFE40',
  '「': '\uFE41',
  '」': '\uFE42',
  '『': '\uFE43',
  '』': '\uFE44',
  '［': '\uFE47',
  '］': '\uFE48',
};

/**
 * Characters that stand upright in a column (Unicode's vertical orientation U or Tu): CJK ideographs and their
 * radicals, kana, hangul, CJK symbols and punctuation, full-width forms, the vertical forms themselves.
 */
const UPRIGHT =
  /[\u1100-\u11FF\u2E80-\u2FFF\u3000-\u303F\u3040-\u30FF\u3100-\u31FF\u3200-\u9FFF\uA960-\uA97F\uAC00-\uD7FF\uF900-\uFAFF\uFE10-\uFE1F\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{20000}-\u{3FFFF}]/u;

/** A character as a column shows it: its vertical form, and whether it stands upright. */
export function columnGlyph(ch: string): { text: string; upright: boolean } {
  const form = VERTICAL_FORMS[ch];
  if (form) return { text: form, upright: true };
  return { text: ch, upright: UPRIGHT.test(ch) };
}

/** What vertical layout needs of text.ts' styled measuring (one font per stretch). */
export interface StyledColumns {
  readonly ctx: SKRSContext2D;
  use(style: number): void;
  /** How each style forms its glyphs (text-character.ts), in the line's frame: x along it, y across it; its tsume. */
  readonly forms: readonly (GlyphForm & { readonly tsume: number })[];
  /** How far above its baseline a style's em box reaches, in ems of its glyphs. */
  emTop(style: number): number;
  /** A style's ascent ("d" height), px: paragraph text's first line stands that far inside its box. */
  ascent(style: number): number;
  /** Each stretch's style, its characters' size, tracking (px) and leading (px, auto leading worked out). */
  segments(
    from: number,
    to: number,
  ): readonly {
    start: number;
    end: number;
    style: number;
    size: number;
    tracking: number;
    leading: number;
    /** Manual kerning before each character after the first, and before the first, px. */
    kern: number;
    lead: number;
  }[];
  paragraphs: readonly { text: string; at: number }[];
}

/** A character drawn: where its baseline starts, its style; turned a quarter clockwise about that point. */
export interface ColumnPiece {
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly style: number;
  readonly turned?: boolean;
}

export interface ColumnLayout {
  /** Each column: its words, its centre line's x, where it starts down the page, its characters. */
  readonly columns: readonly { text: string; centre: number; top: number; pieces: readonly ColumnPiece[] }[];
  readonly ink: Rect;
  readonly hidden: number;
}

/** `spec`'s columns (spec.orientation is vertical). */
export function layoutColumns(spec: TextSpec, styled: StyledColumns): ColumnLayout {
  const { ctx, use, forms, segments, emTop, ascent } = styled;
  const { box } = paragraphOf(spec);
  const boxWidth = box ? box[2] - box[0] : 0;
  const boxHeight = box ? box[3] - box[1] : 0;
  /**
   * Each character of `[from, to)`: its glyph (as capitals where its style sets them), style, own size and advance
   * down the column. The glyphs' forms act in the line's frame, as Adobe's text engine sets a vertical line as a
   * horizontal one turned a quarter clockwise: the horizontal scale runs along the column (an upright character's
   * height, a turned one's width), the vertical scale across it.
   */
  const characters = (from: number, to: number) => {
    const out: {
      text: string;
      upright: boolean;
      style: number;
      size: number;
      before: number;
      advance: number;
    }[] = [];
    for (const seg of segments(from, to)) {
      use(seg.style);
      const form = forms[seg.style]!;
      for (const [i, ch] of [...spec.content.slice(seg.start, seg.end)].entries()) {
        const capital = ch.toUpperCase();
        // One character stays one (ß's capital is two letters: it keeps its own).
        const turned = columnGlyph(form.upper && capital.length === ch.length ? capital : ch);
        const glyph = form.upright ? { ...turned, upright: true } : turned;
        const m = ctx.measureText(glyph.text);
        const along = glyph.upright ? form.size : m.width;
        // Tsume trims the blank between the glyph's ink and its cell, along the column, before and after it.
        const [ahead, behind] =
          form.tsume > 0 && glyph.text.trim() !== ''
            ? blanks(glyph.upright, m, emTop(seg.style) * form.size, form.size)
            : [0, 0];
        out.push({
          ...glyph,
          style: seg.style,
          size: seg.size,
          before: (i === 0 ? seg.lead : seg.kern) - form.tsume * ahead * form.scaleX,
          advance: along * form.scaleX + seg.tracking - form.tsume * behind * form.scaleX,
        });
      }
    }
    return out;
  };
  const measure = (s: string, at: number) => {
    let total = 0;
    for (const c of characters(at, at + s.length)) total += c.before + c.advance;
    return total;
  };
  const rows = textRows(spec, styled.paragraphs, measure, box ? boxHeight : undefined);
  /** How far left of a column's centre line its turned baseline lies (its largest characters'). */
  const turnedBaseline = (row: { text: string; at: number }) =>
    Math.max(...segments(row.at, row.at + row.text.length).map((s) => (emTop(s.style) - 0.5) * s.size));
  /**
   * How far inside paragraph text's box the first column's centre line stands: horizontal text's first line
   * turned a quarter clockwise, its box's right edge the top a line's first baseline hangs an ascent below (as
   * Photoshop's renderings show), the em box centred on the column above that baseline.
   */
  const firstInset = (row: { text: string; at: number } | undefined) => {
    if (!row) return spec.size / 2;
    let inset = 0;
    for (const seg of segments(row.at, row.at + row.text.length)) {
      const centre = (emTop(seg.style) - 0.5) * seg.size;
      inset = Math.max(inset, ascent(seg.style) - centre);
    }
    return inset;
  };
  const firstCentre = box ? spec.x + boxWidth - firstInset(rows[0]) : spec.x;
  const columns: { text: string; centre: number; top: number; pieces: ColumnPiece[] }[] = [];
  let ink: Rect = EMPTY_RECT;
  let hidden = 0;
  let centre = firstCentre;
  for (const [i, row] of rows.entries()) {
    // A column's leading is the largest of its characters'.
    if (i > 0)
      centre -= Math.max(...segments(row.at, row.at + row.text.length).map((s) => s.leading)) + row.gap;
    // Paragraph text shows only the columns whose turned baseline is in its box, as a line whose baseline is.
    if (box && centre - turnedBaseline(row) < spec.x - 1e-6) {
      hidden = rows.length - i;
      break;
    }
    const { justification, indent } = row.paragraph;
    const align = lineAlign(justification, box !== undefined, row.last);
    const text = align === 'left' ? row.text : row.text.trimEnd();
    const own = (s: string, at: number) => measure(s, row.at + at);
    const room = lineRoom(boxHeight, indent, row.first);
    const spread = align === 'spread' ? spreadLine(text, room.width, own) : undefined;
    const length = align === 'center' || align === 'right' ? own(text, 0) : 0;
    const top =
      align === 'center'
        ? spec.y + room.start + (room.width - length) / 2
        : align === 'right'
          ? spec.y + room.start + room.width - length
          : spec.y + room.start;
    const pieces: ColumnPiece[] = [];
    for (const part of spread?.map((p) => ({ at: p.at, text: p.text, y: top + p.dx })) ?? [
      { at: 0, text, y: top },
    ]) {
      let y = part.y;
      const from = row.at + part.at;
      for (const c of characters(from, from + part.text.length)) {
        use(c.style);
        y += c.before;
        const m = ctx.measureText(c.text);
        // Raised (the shift, super- or subscript) is to the right: a turned line's "up".
        const { size: drawn, rise, scaleX: along, scaleY: across } = forms[c.style]!;
        const top = emTop(c.style);
        if (c.text.trim() !== '') {
          if (c.upright) {
            // Its em box (the drawn size, stretched) from the top of its cell, centred across the column.
            const x = centre - (m.width * across) / 2 + rise;
            const baseline = y + top * drawn * along;
            pieces.push({ text: c.text, x, y: baseline, style: c.style });
            ink = inkOf(
              ink,
              x - m.actualBoundingBoxLeft * across,
              x + m.actualBoundingBoxRight * across,
              baseline - m.actualBoundingBoxAscent * along,
              baseline + m.actualBoundingBoxDescent * along,
            );
          } else {
            // Turned a quarter clockwise: the advance runs down the page, the glyph's top faces right. Its baseline
            // is where its own size's em box centred on the column puts it, whatever its drawn size or scale.
            const x = centre - (top - 0.5) * c.size + rise;
            pieces.push({ text: c.text, x, y, style: c.style, turned: true });
            ink = inkOf(
              ink,
              x - m.actualBoundingBoxDescent * across,
              x + m.actualBoundingBoxAscent * across,
              y - m.actualBoundingBoxLeft * along,
              y + m.actualBoundingBoxRight * along,
            );
          }
        }
        y += c.advance;
      }
    }
    columns.push({ text, centre, top, pieces });
  }
  return { columns, ink, hidden };
}

function inkOf(ink: Rect, left: number, right: number, top: number, bottom: number): Rect {
  return right > left && bottom > top
    ? unionRect(ink, { x: left, y: top, w: right - left, h: bottom - top })
    : ink;
}

/**
 * The blank before and after a glyph along a column, unscaled: an upright one's above its ink in its em box (whose
 * top is `top` above the baseline) and below it; a turned one's side bearings.
 */
function blanks(
  upright: boolean,
  m: {
    width: number;
    actualBoundingBoxLeft: number;
    actualBoundingBoxRight: number;
    actualBoundingBoxAscent: number;
    actualBoundingBoxDescent: number;
  },
  top: number,
  size: number,
): [number, number] {
  if (upright) {
    return [
      Math.max(0, top - m.actualBoundingBoxAscent),
      Math.max(0, size - top - m.actualBoundingBoxDescent),
    ];
  }
  return [Math.max(0, -m.actualBoundingBoxLeft), Math.max(0, m.width - m.actualBoundingBoxRight)];
}
