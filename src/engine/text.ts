/**
 * Text layers: layout and rendering of a TextSpec with @napi-rs/canvas (Skia).
 *
 * Layout, as Photoshop sets text (the paragraph settings: text-paragraph.ts):
 * - Point text (no box): `x, y + TEXT_BASELINE_EM · size` is its anchor, where a PSD's text transform has its
 *   origin; line i has its baseline at `y + (TEXT_BASELINE_EM + i · LINE_HEIGHT_EM) · size` and starts (left),
 *   is centred (center) or ends (right) at `x`. For left-aligned text, what create_text_layer makes, `x, y` is the
 *   top-left of the text box. TEXT_BASELINE_EM is the bundled font's ascender (hhea 880/1000, the top of its
 *   ideographic em box), so CJK ink starts just below `y`.
 * - Paragraph text (a box): `x, y` is the box's top-left and the box is `box`'s width and height; lines wrap to
 *   its width and are aligned within it, the first baseline one ascent below the top (Adobe's "Ascent" first
 *   baseline: the height of the font's "d", which is where Photoshop's own renderings put it: 0.81 em for Noto
 *   Sans CJK, 0.72 em for Arial), and lines that no longer fit its height are not drawn.
 * LINE_HEIGHT_EM is Photoshop's "auto" leading (120 %); a fixed leading and tracking are text-spacing.ts'. The
 * PSD codec uses the same constants and anchor, so a round trip re-renders in the same place.
 *
 * Fonts: the CJK font ships as an npm dependency (@embedpdf/fonts-sc, Noto Sans Hans = Noto Sans CJK SC) in five
 * weights, each registered by path under its own family alias (BUNDLED_FAMILIES) at first use. Skia does not fall
 * back on its own (engine.md §2.3), so the bundled family is always the last entry of the font string: Chinese
 * renders on a machine without system fonts. A requested font that is not installed falls back to the bundled
 * weight nearest to the style words in its name ("… Bold" → Bold), and `renderedFont` says so.
 *
 * The glyphs are drawn in a fixed mid grey, read with getImageData (straight alpha; `canvas.data()` is
 * premultiplied), given the exact text colour (one solid fill: only coverage varies, and it does not depend on the
 * colour), and trimmed to the ink.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createCanvas, GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import { fontKey, TEXT_BASELINE_EM, twinFace, twinOf } from '../registry/tools/text-params.js';
import { fail } from './errors.js';
import type {
  CharacterSettings,
  FauxStyles,
  Raster,
  Rect,
  RGB,
  TextMatrix,
  TextSpec,
  TextWarp,
} from './model.js';
import { alphaBounds, cropRaster, EMPTY_RECT, isEmptyRect, unionRect } from './raster.js';
import { type GlyphForm, glyphsOf, isLowercase, settingsOf } from './text-character.js';
import {
  FAUX_BOLD_EM,
  FAUX_ITALIC_SLANT,
  fauxOf,
  RULE_EM,
  STRIKETHROUGH_EM,
  UNDERLINE_EM,
} from './text-decoration.js';
import { anchorDrop, isVertical } from './text-orientation.js';
import {
  type LinePart,
  lineAlign,
  lineRoom,
  type ParagraphSettings,
  paragraphOf,
  spreadLine,
  textRows,
} from './text-paragraph.js';
import { baseStyle, resizeTextSpec, sameColour, stylesIn } from './text-runs.js';
import { letterSpacing, lineStep } from './text-spacing.js';
import { layoutColumns } from './text-vertical.js';
import { type WarpBox, warpRaster } from './text-warp.js';

export { resizeTextSpec };

/** The family alias the bundled CJK font (its Regular weight) is registered under. */
export const BUNDLED_FONT = 'Noto Sans SC';
/** The PostScript name of the bundled font file (what a PSD's text engine data names). */
export const BUNDLED_FONT_POSTSCRIPT = 'NotoSansHans-Regular';

/** The weights the bundled font ships in, lightest first; each is registered as its own family on first use. */
const WEIGHTS = ['Light', 'DemiLight', 'Regular', 'Medium', 'Bold'] as const;
type Weight = (typeof WEIGHTS)[number];

/** The family alias of a bundled weight: 'Noto Sans SC' for Regular, 'Noto Sans SC Bold' for Bold. */
function familyOf(weight: Weight): string {
  return weight === 'Regular' ? BUNDLED_FONT : `${BUNDLED_FONT} ${weight}`;
}

/** The bundled font's family aliases, lightest weight first. */
export const BUNDLED_FAMILIES: readonly string[] = WEIGHTS.map(familyOf);

/** Distance from the top of the text box to the first baseline, in ems (the bundled font's ascender). */
export { TEXT_BASELINE_EM };
/** Distance between baselines, in ems: Photoshop's auto leading. */
export const LINE_HEIGHT_EM = 1.2;

/** The largest text rendering we build (width × height); beyond it the call is refused. */
export const MAX_TEXT_PIXELS = 100_000_000;

/** Smaller sizes render nothing. */
const MIN_TEXT_SIZE = 0.01;

/** Layer names Photoshop gives text layers: the first characters of the text. */
const AUTO_NAME_CHARS = 20;

/**
 * Other names of the bundled font, by weight: the family and PostScript names under which Noto Sans CJK SC
 * (Source Han Sans SC, 思源黑体, under another name) is known. Regular also answers to the bare family names.
 */
const NAME_STEMS = [
  'Noto Sans SC',
  'NotoSansSC',
  'Noto Sans Hans',
  'NotoSansHans',
  'Noto Sans S Chinese',
  'Noto Sans CJK SC',
  'NotoSansCJKsc',
  'Source Han Sans SC',
  'SourceHanSansSC',
  '思源黑体',
];

const WEIGHT_BY_NAME = new Map<string, Weight>();
for (const weight of WEIGHTS) {
  for (const stem of NAME_STEMS) {
    WEIGHT_BY_NAME.set(fontKey(`${stem} ${weight}`), weight);
    if (weight === 'Regular') WEIGHT_BY_NAME.set(fontKey(stem), weight);
  }
}

/**
 * The bundled weight closest to what a font name asks for (Photoshop-style style words, or Chinese ones), for
 * a font that is not installed: "Microsoft YaHei Bold" falls back to the bundled Bold, not to Regular.
 */
function weightIn(requested: string): Weight {
  const n = fontKey(requested);
  if (/中粗/.test(n)) return 'Medium';
  if (/semibold|demibold|extrabold|ultrabold|bold|heavy|black|粗/.test(n)) return 'Bold';
  if (/medium/.test(n)) return 'Medium';
  if (/demilight|semilight/.test(n)) return 'DemiLight';
  if (/light|thin|hairline|细/.test(n)) return 'Light';
  return 'Regular';
}

let bundledDir: string | null = null;

/** The bundled font file of `weight`, resolved through the package (never a hard-coded node_modules path). */
export function bundledFontPath(weight: Weight = 'Regular'): string {
  if (bundledDir === null) {
    const require = createRequire(import.meta.url);
    // The package exports only its JS entry; the fonts sit in `fonts/` next to `dist/`.
    const entry = require.resolve('@embedpdf/fonts-sc');
    bundledDir = join(dirname(entry), '..', 'fonts');
  }
  return join(bundledDir, `NotoSansHans-${weight}.otf`);
}

const registered = new Set<Weight>();

/** Registers a bundled weight under its family alias (once per process; each file is about 8 MB). */
function ensureWeight(weight: Weight): string {
  const family = familyOf(weight);
  if (registered.has(weight)) return family;
  const file = bundledFontPath(weight);
  const key = GlobalFonts.registerFromPath(file, family);
  if (!key && !GlobalFonts.has(family)) {
    fail('internal', `无法加载内置中文字体：${file}`, { hint: '重新安装依赖（npm install）' });
  }
  registered.add(weight);
  return family;
}

/** Registers the bundled CJK font's Regular weight under BUNDLED_FONT (once per process). */
export function ensureBundledFont(): void {
  ensureWeight('Regular');
}

/** Whether `family` is one of the bundled font's weights (which hold every CJK glyph themselves). */
export function isBundledFamily(family: string): boolean {
  return BUNDLED_FAMILIES.includes(family);
}

/** Installed font families (system fonts and the bundled font's weights, registered or not yet). */
export function availableFonts(): string[] {
  ensureBundledFont();
  return [...new Set([...GlobalFonts.families.map((f) => f.family), ...BUNDLED_FAMILIES])].sort();
}

export interface ResolvedFont {
  /** The family the text is drawn with (CJK always falls back to a bundled weight). */
  readonly family: string;
  /** True when the requested font is not installed and another is used instead. */
  readonly fallback: boolean;
  /** The one used instead has the requested font's metrics (METRIC_TWINS), not the bundled font. */
  readonly twin?: true;
}

/**
 * The family to draw `requested` with: the bundled font's weight for any of its names, an installed family
 * matching it (case, spaces and hyphens ignored, an optional "Regular" suffix allowed), or else the bundled
 * weight nearest to the style words in the name, as a fallback.
 */
export function resolveFont(requested: string | undefined): ResolvedFont {
  ensureBundledFont();
  const want = fontKey(requested ?? '');
  if (want === '') return { family: BUNDLED_FONT, fallback: false };
  const bundled = WEIGHT_BY_NAME.get(want);
  if (bundled) return { family: ensureWeight(bundled), fallback: false };
  for (const f of GlobalFonts.families) {
    const have = fontKey(f.family);
    if (have === want || `${have}regular` === want) {
      return { family: f.family, fallback: false };
    }
  }
  const twin = twinOf(want);
  if (twin && hasFace(twin)) return { family: twin, fallback: true, twin: true };
  return { family: ensureWeight(weightIn(requested ?? '')), fallback: true };
}

/** Whether the twin face `name` ("Liberation Sans Bold") is installed: its family, with a face of its weight and slant. */
function hasFace(name: string): boolean {
  const face = twinFace(name);
  const family = face && GlobalFonts.families.find((f) => f.family === face.family);
  return (
    family?.styles.some((s) => s.weight >= 600 === face!.bold && (s.style === 'italic') === face!.italic) ??
    false
  );
}

/** Style words a family name may end with, as PostScript names spell them after the hyphen. */
const STYLE_WORDS: ReadonlyMap<string, string> = new Map(
  [
    'Thin',
    'Hairline',
    'ExtraLight',
    'UltraLight',
    'Light',
    'DemiLight',
    'SemiLight',
    'Normal',
    'Regular',
    'Book',
    'Medium',
    'DemiBold',
    'Semibold',
    'Bold',
    'ExtraBold',
    'UltraBold',
    'Heavy',
    'Black',
    'Italic',
    'Oblique',
    'Condensed',
  ].map((w) => [w.toLowerCase(), w]),
);

/**
 * PostScript names of fonts a designer in China names by their Chinese (or spaced) family name, by the family name
 * as `fontKey` spells it: Photoshop looks a PSD's font up by PostScript name.
 */
const POSTSCRIPT_FAMILIES: ReadonlyMap<string, string> = new Map([
  ['微软雅黑', 'MicrosoftYaHei'],
  ['microsoftyahei', 'MicrosoftYaHei'],
  ['microsoftyaheiui', 'MicrosoftYaHeiUI'],
  ['宋体', 'SimSun'],
  ['新宋体', 'NSimSun'],
  ['黑体', 'SimHei'],
  ['楷体', 'KaiTi'],
  ['仿宋', 'FangSong'],
  ['等线', 'DengXian'],
  ['隶书', 'LiSu'],
  ['幼圆', 'YouYuan'],
  ['华文黑体', 'STHeiti'],
  ['华文宋体', 'STSong'],
  ['华文楷体', 'STKaiti'],
  ['华文仿宋', 'STFangsong'],
  ['苹方', 'PingFangSC'],
  ['苹方简', 'PingFangSC'],
  ['pingfangsc', 'PingFangSC'],
  ['思源宋体', 'SourceHanSerifSC'],
  ['sourcehanserifsc', 'SourceHanSerifSC'],
]);

/** Families whose PostScript names always carry a style (PingFangSC-Regular, never PingFangSC). */
const STYLED_ALWAYS = new Set(['PingFangSC', 'SourceHanSerifSC', 'DengXian']);

/** Whether `name` can be a PostScript name: printable ASCII without spaces or PostScript delimiters. */
function isPostScriptName(name: string): boolean {
  return /^[!-~]{1,127}$/.test(name) && !/[[\](){}<>/%]/.test(name);
}

/**
 * The font name a PSD should carry for `font` (Photoshop looks fonts up by PostScript name): a name that already
 * is one — a file's own, "SourceHanSansSC-Bold", "ArialMT" — as it is; any other name of a bundled weight (its
 * family alias, 思源黑体 Bold…) as that weight's file's PostScript name; a family name, with an optional style,
 * in PostScript form ("Microsoft YaHei" → "MicrosoftYaHei", "Microsoft YaHei Bold" → "MicrosoftYaHei-Bold",
 * 微软雅黑 → "MicrosoftYaHei"). A name in another script that is none of the known fonts is kept as it is.
 */
export function psdFontName(font: string): string {
  const name = font.trim();
  if (isPostScriptName(name)) return name;
  const weight = WEIGHT_BY_NAME.get(fontKey(name));
  if (weight) return `NotoSansHans-${weight}`;
  const words = name.split(/[\s_]+/).filter((w) => w !== '');
  const styles: string[] = [];
  while (words.length > 1 && STYLE_WORDS.has(words[words.length - 1]!.toLowerCase())) {
    styles.unshift(STYLE_WORDS.get(words.pop()!.toLowerCase())!);
  }
  const family = words.join(' ');
  const known = POSTSCRIPT_FAMILIES.get(fontKey(family));
  const base = known ?? family.replace(/[\s-]+/g, '');
  if (!isPostScriptName(base)) return name;
  const style = styles.filter((w) => w !== 'Regular' && w !== 'Normal').join('');
  if (style !== '') return `${base}-${style}`;
  return known && STYLED_ALWAYS.has(known) ? `${base}-Regular` : base;
}

/**
 * `font` as a designer picks it from a list: any name of a bundled weight (its PostScript name from a file,
 * 思源黑体 Bold…) as that weight's family alias, 'Noto Sans SC Bold'; any other name as it is.
 */
export function fontShownAs(font: string): string {
  const weight = WEIGHT_BY_NAME.get(fontKey(font));
  return weight ? familyOf(weight) : font;
}

function fontString(size: number, family: string): string {
  const px = Number(size.toFixed(4));
  const quote = (f: string) => `"${f.replace(/["\\]/g, '')}"`;
  if (isBundledFamily(family)) return `${px}px ${quote(family)}`;
  // A twin face is its family's face of that weight and slant (the canvas picks it by the font's style words); the
  // characters it lacks (CJK) come from the bundled weight of the same boldness, as with a bold font not installed.
  const face = twinFace(family);
  if (!face) return `${px}px ${quote(family)}, ${quote(BUNDLED_FONT)}`;
  const style = `${face.italic ? 'italic ' : ''}${face.bold ? 'bold ' : ''}`;
  const cjk = face.bold ? ensureWeight('Bold') : BUNDLED_FONT;
  return `${style}${px}px ${quote(face.family)}, ${quote(cjk)}`;
}

/** The paragraphs of `content` and where each starts: Photoshop breaks at `\n`, `\r\n` and `\r` alike. */
function paragraphsOf(content: string): { text: string; at: number }[] {
  const out: { text: string; at: number }[] = [];
  let at = 0;
  for (const m of content.matchAll(/\r\n|\r|\n/g)) {
    out.push({ text: content.slice(at, m.index), at });
    at = m.index + m[0].length;
  }
  out.push({ text: content.slice(at), at });
  return out;
}

/** Splits text into lines the way Photoshop does (`\n`, `\r\n` and `\r` all break). */
export function textLines(content: string): string[] {
  return paragraphsOf(content).map((p) => p.text);
}

/** The layer name Photoshop gives a text layer: the first characters of its first non-empty line. */
export function autoLayerName(content: string): string {
  const line = textLines(content).find((l) => l.trim() !== '') ?? '';
  const name = [...line.trim()].slice(0, AUTO_NAME_CHARS).join('');
  return name === '' ? '文字图层' : name;
}

let measurer: SKRSContext2D | null = null;

function measureContext(): SKRSContext2D {
  if (!measurer) measurer = createCanvas(1, 1).getContext('2d');
  return measurer;
}

/** A stretch of a line drawn in one style: its characters, where it starts, and its style in TextLayout.styles. */
export interface TextPiece {
  readonly text: string;
  readonly x: number;
  /** Its advance, px: how long its underline or strikethrough runs. */
  readonly width?: number;
  /** Its own baseline (a vertical column's character); absent: its line's. */
  readonly y?: number;
  readonly style: number;
  /** Turned a quarter clockwise about its baseline's start (a Latin letter in a vertical column). */
  readonly turned?: boolean;
}

/**
 * One laid-out line: its text drawn from `x` on `baseline`, or, spread to a box's width, piece by piece. A vertical
 * column (text-vertical.ts): `baseline` is its centre line's x, `x` where it starts down the page.
 */
export interface TextLine {
  readonly text: string;
  readonly baseline: number;
  /** Where the line starts (its left end), layout coordinates. */
  readonly x: number;
  /** A line spread to the box's width (justify-*): its pieces and where each starts. */
  readonly parts?: readonly { readonly text: string; readonly x: number }[];
  /** What is drawn: the line's (or its parts') stretches of one style each, blank ones left out. */
  readonly pieces: readonly TextPiece[];
}

/**
 * A style characters are drawn in: the canvas font, the tracking in pixels (before the glyphs' horizontal scale,
 * which stretches the canvas), the colour, and how the glyphs are formed (text-character.ts: their size, raised by
 * `rise`, scaled, as capitals).
 */
export interface DrawStyle extends GlyphForm {
  readonly font: string;
  readonly spacing: number;
  readonly color: RGB;
  /** Those of the faux styles it has on (text-decoration.ts), measured in ems of the glyphs' `size`. */
  readonly faux: FauxStyles;
  /** The share of the blank beside each glyph taken out (tsume, 比例间距; 0: none). */
  readonly tsume: number;
}

/** A stretch's advance and ink box as drawn (its glyphs' scales applied), px. */
interface PieceMetrics {
  readonly width: number;
  readonly actualBoundingBoxLeft: number;
  readonly actualBoundingBoxRight: number;
  readonly actualBoundingBoxAscent: number;
  readonly actualBoundingBoxDescent: number;
}

/** The characters a style draws for `text`: capitals where it sets them. */
function shownText(style: DrawStyle, text: string): string {
  return style.upper ? text.toUpperCase() : text;
}

/** Whether a style draws its glyphs as the font has them: no shift, no scale (capitals are only other letters). */
function isPlainForm(style: DrawStyle): boolean {
  return style.rise === 0 && style.scaleX === 1 && style.scaleY === 1;
}

/** `[start, end)` of `content` cut where small caps' lowercase letters start and stop (`small` on theirs). */
function smallCapParts(content: string, start: number, end: number) {
  const parts: { start: number; end: number; small: boolean }[] = [];
  let at = start;
  while (at < end) {
    const small = isLowercase(content[at]!);
    let to = at + 1;
    while (to < end && isLowercase(content[to]!) === small) to++;
    parts.push({ start: at, end: to, small });
    at = to;
  }
  return parts.length > 0 ? parts : [{ start, end, small: false }];
}

export interface TextLayout {
  /** The canvas font of the text's own style (its first character's). */
  readonly font: string;
  readonly styles: readonly DrawStyle[];
  readonly lines: readonly TextLine[];
  /** Where ink can be, document pixels (unrounded, from the font's measured glyph boxes); empty when none. */
  readonly ink: Rect;
  /** Paragraph text's lines that do not fit its box and are not drawn (Photoshop's overflow). */
  readonly hidden: number;
}

/**
 * Where paragraph text's first baseline lies below its box's top, in pixels: Adobe's "Ascent" first baseline, the
 * height of the font's "d" (what Photoshop's own renderings show: 0.81 em for Noto Sans CJK, 0.72 em for Arial).
 */
function boxAscent(ctx: SKRSContext2D, size: number): number {
  const d = ctx.measureText('d').actualBoundingBoxAscent;
  return d > 0 ? d : TEXT_BASELINE_EM * size;
}

/**
 * The measuring context set to each of the spec's styles in turn, by where characters are: `measure(s, at)` is
 * the advance of `s` starting at character `at`, each stretch in its own font, tracking and scale (no kerning
 * across a change of style, as none is applied between two runs of glyphs). Each stretch also says its
 * characters' own size, tracking and leading, which set the line (vertical columns add tracking themselves,
 * character by character, and turn the glyphs' forms into the column's frame: text-vertical.ts).
 */
function styledMeasure(spec: TextSpec, vertical = false) {
  const ctx = measureContext();
  const styles: DrawStyle[] = [];
  const families: string[] = [];
  const keys = new Map<string, number>();
  // An empty text still has its style (the caret's), which places and sizes its one empty line.
  const spans =
    spec.content === ''
      ? [{ start: 0, end: 0, style: baseStyle(spec) }]
      : stylesIn(spec, 0, spec.content.length);
  const ranges = spans.flatMap((r, i) => {
    const { size, color } = r.style;
    const family = resolveFont(r.style.font).family;
    // Faux bold widens each character's advance by what it thickens it (as Photoshop's renderings show).
    const tracking = letterSpacing(r.style) + (r.style.fauxBold === true ? FAUX_BOLD_EM * size : 0);
    const leading = lineStep(r.style, LINE_HEIGHT_EM);
    // Manual kerning: before each character, in ems of the one before it (the stretch's own size inside it).
    const kerning = (settingsOf(r.style).kerning ?? 0) / 1000;
    const kern = kerning * size;
    const before = i > 0 ? spans[i - 1]!.style.size : size;
    const parts =
      r.style.caps === 'small'
        ? smallCapParts(spec.content, r.start, r.end)
        : [{ start: r.start, end: r.end, small: false }];
    return parts.map((part) => {
      const form: GlyphForm = glyphsOf(r.style, size, part.small);
      const font = fontString(form.size, family);
      // Each character's kerning joins its tracking (the canvas adds both after it); the stretch is then set off
      // by its first character's kerning (its `lead`) and ends one kerning short (`kern`).
      const spacing = vertical ? 0 : (tracking + kern) / form.scaleX;
      const faux = fauxOf(r.style);
      const tsume = settingsOf(r.style).tsume ?? 0;
      const key = JSON.stringify([font, spacing, color.r, color.g, color.b, faux, form, tsume]);
      let k = keys.get(key);
      if (k === undefined) {
        k = styles.push({ ...form, font, spacing, color, faux, tsume }) - 1;
        families.push(family);
        keys.set(key, k);
      }
      const lead = kerning * (part.start === r.start ? before : size);
      return { start: part.start, end: part.end, style: k, size, tracking, leading, kern, lead };
    });
  });
  /** What a stretch's kerning adds to its measured width: its lead before it, less the kerning after its last. */
  const kerned = (seg: { start: number; end: number; lead: number; kern: number }) =>
    vertical || seg.end === seg.start ? 0 : seg.lead - seg.kern;
  let current = -1;
  const use = (k: number) => {
    if (k === current) return;
    ctx.font = styles[k]!.font;
    // Tracking is in every measure (wrapping, alignment, the ink box) as it is in the drawing.
    ctx.letterSpacing = `${styles[k]!.spacing}px`;
    current = k;
  };
  /** The stretches of one style within `[from, to)`, at least one (the style of `from` for an empty range). */
  const segments = (from: number, to: number) => {
    const inside = ranges.filter((r) => r.end > from && r.start < to);
    if (inside.length > 0) {
      return inside.map((r) => ({
        ...r,
        start: Math.max(r.start, from),
        end: Math.min(r.end, to),
        // Cut inside a stretch, its first character's kerning is in ems of the stretch's own size.
        lead: r.start < from ? r.kern : r.lead,
      }));
    }
    const at = ranges.find((r) => r.end > from) ?? ranges.at(-1)!;
    return [{ ...at, start: from, end: from }];
  };
  /** `text` in style `k` (the context set to it): what is drawn, and its metrics with the glyphs' scale. */
  const scaled = (st: DrawStyle, m: ReturnType<SKRSContext2D['measureText']>): PieceMetrics => ({
    width: m.width * st.scaleX,
    actualBoundingBoxLeft: m.actualBoundingBoxLeft * st.scaleX,
    actualBoundingBoxRight: m.actualBoundingBoxRight * st.scaleX,
    actualBoundingBoxAscent: m.actualBoundingBoxAscent * st.scaleY,
    actualBoundingBoxDescent: m.actualBoundingBoxDescent * st.scaleY,
  });
  const metrics = (
    k: number,
    text: string,
  ): PieceMetrics & { shown: string; parts?: { text: string; dx: number; m: PieceMetrics }[] } => {
    use(k);
    const st = styles[k]!;
    const shown = shownText(st, text);
    const whole = scaled(st, ctx.measureText(shown));
    if (st.tsume === 0) return { shown, ...whole };
    // Tsume: each character on its own, the blank between its ink and its advance (the tracking after it left
    // alone) trimmed by the share on both sides, the glyph itself unchanged.
    const parts: { text: string; dx: number; m: PieceMetrics }[] = [];
    let x = 0;
    for (const ch of shown) {
      const m = scaled(st, ctx.measureText(ch));
      const advance = m.width - st.spacing * st.scaleX;
      const inked = ch.trim() !== '' && m.actualBoundingBoxLeft + m.actualBoundingBoxRight > 0;
      const left = inked ? Math.max(0, -m.actualBoundingBoxLeft) : 0;
      const right = inked ? Math.max(0, advance - m.actualBoundingBoxRight) : 0;
      parts.push({
        text: ch,
        dx: x - st.tsume * left,
        m: { ...m, width: m.width - st.tsume * (left + right) },
      });
      x += m.width - st.tsume * (left + right);
    }
    return { shown, ...whole, width: x, parts };
  };
  const measure = (s: string, at: number): number => {
    let width = 0;
    for (const seg of segments(at, at + s.length)) {
      width += metrics(seg.style, s.slice(seg.start - at, seg.end - at)).width + kerned(seg);
    }
    return width;
  };
  /**
   * How far above the baseline style `k`'s em box reaches, in ems of its glyphs: the bundled font's ideographic em
   * box (TEXT_BASELINE_EM), another font's ascent and descent centred on the em (its fontBoundingBox), which is
   * where Photoshop stands a Latin font's turned letters in a column.
   */
  const emTops: number[] = [];
  const emTop = (k: number): number => {
    // Asked for every character of a column: measured once a style.
    const known = emTops[k];
    if (known !== undefined) return known;
    let top = TEXT_BASELINE_EM;
    if (!isBundledFamily(families[k]!)) {
      use(k);
      const m = ctx.measureText('H');
      const size = styles[k]!.size;
      const centre = (m.fontBoundingBoxAscent - m.fontBoundingBoxDescent) / 2 / size;
      if (Number.isFinite(centre) && size > 0) top = 0.5 + centre;
    }
    emTops[k] = top;
    return top;
  };
  /** Style `k`'s "d" height, px: how far below its box's top paragraph text's first baseline lies. */
  const ascent = (k: number): number => {
    use(k);
    return boxAscent(ctx, styles[k]!.size);
  };
  return { ctx, styles, use, segments, measure, metrics, kerned, emTop, ascent, single: ranges.length <= 1 };
}

/** Pixels from the line before's baseline to the baseline of characters `[from, to)`: the largest leading. */
function rowStep(segments: readonly { leading: number }[]): number {
  return Math.max(...segments.map((s) => s.leading));
}

/** Lines, their baselines and the box their glyphs cover, without drawing anything. */
export function layoutText(spec: TextSpec): TextLayout {
  if (isVertical(spec)) {
    const { ctx, styles, use, segments, emTop, ascent } = styledMeasure(spec, true);
    const paragraphs = paragraphsOf(spec.content);
    const { columns, ink, hidden } = layoutColumns(spec, {
      ctx,
      use,
      forms: styles,
      emTop,
      ascent,
      segments,
      paragraphs,
    });
    const lines = columns.map((c) => ({ text: c.text, baseline: c.centre, x: c.top, pieces: c.pieces }));
    return { font: styles[0]!.font, styles, lines, ink, hidden };
  }
  const { ctx, styles, use, segments, measure, metrics, kerned, single } = styledMeasure(spec);
  const { box } = paragraphOf(spec);
  // Point text stands about x as in a box of no width (text-paragraph.ts lineRoom).
  const boxWidth = box ? box[2] - box[0] : 0;
  const rows = textRows(spec, paragraphsOf(spec.content), measure, box ? boxWidth : undefined);
  const boxTop = () => {
    if (!rows[0]) return TEXT_BASELINE_EM * spec.size;
    let ascent = 0;
    for (const seg of segments(rows[0].at, rows[0].at + rows[0].text.length)) {
      use(seg.style);
      ascent = Math.max(ascent, boxAscent(ctx, seg.size));
    }
    return ascent;
  };
  const first = box ? spec.y + boxTop() : spec.y + TEXT_BASELINE_EM * spec.size;
  const bottom = box ? spec.y + (box[3] - box[1]) : Infinity;
  let ink: Rect = EMPTY_RECT;
  let hidden = 0;
  const lines: TextLine[] = [];
  let spaced = 0;
  let stepped = 0;
  const uniformStep = lineStep(spec, LINE_HEIGHT_EM);
  for (const [i, row] of rows.entries()) {
    spaced += row.gap;
    // A line's leading is the largest of its characters' (auto leading: of their size).
    if (i > 0) stepped += rowStep(segments(row.at, row.at + row.text.length));
    // One style: i steps of one leading, exactly as the text has always been set.
    const baseline = first + (single ? i * uniformStep : stepped) + spaced;
    const { justification, indent } = row.paragraph;
    // Paragraph text shows only the lines whose baseline is in its box (Photoshop hides the rest until the box
    // grows; its renderings show a last line whose descenders reach past the box's bottom).
    if (box && baseline > bottom + 1e-6) {
      hidden = rows.length - i;
      break;
    }
    const align = lineAlign(justification, box !== undefined, row.last);
    const text = align === 'left' ? row.text : row.text.trimEnd();
    const own = (s: string, at: number) => measure(s, row.at + at);
    // Point text is aligned about x (its anchor), box text within the box from x to x + its width, less indents.
    const room = lineRoom(boxWidth, indent, row.first);
    const spread = align === 'spread' ? spreadLine(text, room.width, own) : undefined;
    const advance = align === 'center' || align === 'right' ? own(text, 0) : 0;
    const x =
      align === 'center'
        ? spec.x + room.start + (room.width - advance) / 2
        : align === 'right'
          ? spec.x + room.start + room.width - advance
          : spec.x + room.start;
    const parts = spread?.map((p: LinePart) => ({ text: p.text, x: x + p.dx, at: p.at }));
    const pieces: TextPiece[] = [];
    for (const part of parts ?? [{ text, x, at: 0 }]) {
      const from = row.at + part.at;
      let px = part.x;
      for (const seg of segments(from, from + part.text.length)) {
        const piece = part.text.slice(seg.start - from, seg.end - from);
        const m = metrics(seg.style, piece);
        if (piece.trim() !== '') {
          const style = styles[seg.style]!;
          const at = px + seg.lead;
          // A stretch in tsume is drawn a character at a time, each where its trimmed blanks put it.
          for (const part of m.parts ?? [{ text: m.shown, dx: 0, m }]) {
            if (part.text.trim() === '') continue;
            const last = part === m.parts?.at(-1) || !m.parts;
            pieces.push({
              text: part.text,
              x: at + part.dx,
              style: seg.style,
              width: part.m.width - (last ? seg.kern : 0),
            });
            const grown = fauxInk(style, part.m, at + part.dx, baseline - style.rise);
            if (grown.w > 0 && grown.h > 0) ink = unionRect(ink, grown);
          }
        }
        px += m.width + kerned(seg);
      }
    }
    lines.push({
      text,
      baseline,
      x,
      ...(parts ? { parts: parts.map((p) => ({ text: p.text, x: p.x })) } : {}),
      pieces,
    });
  }
  return { font: styles[0]!.font, styles, lines, ink, hidden };
}

const COVERAGE_INK = '#808080';

/** The coverage of the layout's pieces that `only` admits, drawn into `frame` (straight RGBA, grey). */
function coverage(spec: TextSpec, layout: TextLayout, frame: Rect, only: (style: DrawStyle) => boolean) {
  const canvas = createCanvas(frame.w, frame.h);
  const ctx = canvas.getContext('2d');
  // Skia adjusts glyph coverage by the fill's luminance (black thinner, white bolder); drawing in mid grey gives
  // colour-independent coverage closest to plain (FreeType) coverage. The colour is applied afterwards.
  ctx.fillStyle = COVERAGE_INK;
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'left';
  const m = spec.transform;
  if (m) {
    // Document point p lands at anchor + M·(p − anchor), shifted into the frame.
    const [a, b, c, d] = m;
    const { x: ax, y: ay } = textAnchor(spec);
    ctx.setTransform(a, b, c, d, ax - frame.x - (a * ax + c * ay), ay - frame.y - (b * ax + d * ay));
  }
  const ox = m ? 0 : frame.x;
  const oy = m ? 0 : frame.y;
  let current = -1;
  for (const line of layout.lines) {
    for (const piece of line.pieces) {
      const style = layout.styles[piece.style]!;
      if (!only(style)) continue;
      if (piece.style !== current) {
        ctx.font = style.font;
        ctx.letterSpacing = `${style.spacing}px`;
        current = piece.style;
      }
      // A column's character stands where its layout put it, shift included (text-vertical.ts).
      const column = piece.y !== undefined;
      const y = column ? piece.y - oy : line.baseline - style.rise - oy;
      if (!piece.turned && Object.keys(style.faux).length === 0 && isPlainForm(style)) {
        ctx.fillText(piece.text, piece.x - ox, y);
        continue;
      }
      ctx.save();
      ctx.translate(piece.x - ox, y);
      if (piece.turned) ctx.rotate(Math.PI / 2);
      // The glyphs stretched about their baseline's start (the advance with them: the tracking was set for it). An
      // upright character in a column is stretched in the column's frame: its horizontal scale runs down the page.
      if (!isPlainForm(style)) {
        if (column && !piece.turned) ctx.scale(style.scaleY, style.scaleX);
        else ctx.scale(style.scaleX, style.scaleY);
      }
      drawPiece(ctx, piece, style, piece.y === undefined);
      ctx.restore();
    }
  }
  return ctx.getImageData(0, 0, frame.w, frame.h).data;
}

/**
 * A piece drawn at the origin on its baseline with its faux styles (text-decoration.ts): slanted about the
 * baseline, its outline stroked as well as filled, and, on a horizontal line (`ruled`), its rules.
 */
function drawPiece(ctx: SKRSContext2D, piece: TextPiece, style: DrawStyle, ruled: boolean): void {
  const { faux, size } = style;
  if (faux.fauxItalic && ruled) ctx.transform(1, 0, -FAUX_ITALIC_SLANT, 1, 0, 0);
  ctx.fillText(piece.text, 0, 0);
  if (faux.fauxBold) {
    ctx.strokeStyle = COVERAGE_INK;
    ctx.lineWidth = FAUX_BOLD_EM * size;
    ctx.lineJoin = 'round';
    ctx.strokeText(piece.text, 0, 0);
  }
  if (!ruled) return;
  // The piece's advance as laid out, in the stretched space the rules are drawn in.
  const width = piece.width !== undefined ? piece.width / style.scaleX : ctx.measureText(piece.text).width;
  if (faux.fauxItalic) ctx.transform(1, 0, FAUX_ITALIC_SLANT, 1, 0, 0);
  const rule = RULE_EM * size;
  if (faux.underline) ctx.fillRect(0, UNDERLINE_EM * size - rule / 2, width, rule);
  if (faux.strikethrough) ctx.fillRect(0, STRIKETHROUGH_EM * size - rule / 2, width, rule);
}

/** Where a piece's ink can be with its faux styles: its glyphs' box, slanted, grown, and its rules. */
function fauxInk(
  style: DrawStyle,
  m: {
    actualBoundingBoxLeft: number;
    actualBoundingBoxRight: number;
    actualBoundingBoxAscent: number;
    actualBoundingBoxDescent: number;
    width: number;
  },
  x: number,
  baseline: number,
): Rect {
  const { faux, size } = style;
  const grow = faux.fauxBold ? (FAUX_BOLD_EM * size) / 2 : 0;
  let left = x - m.actualBoundingBoxLeft - grow;
  let right = x + m.actualBoundingBoxRight + grow;
  let top = baseline - m.actualBoundingBoxAscent - grow;
  let under = baseline + m.actualBoundingBoxDescent + grow;
  if (faux.fauxItalic) {
    right += FAUX_ITALIC_SLANT * Math.max(0, m.actualBoundingBoxAscent + grow);
    left -= FAUX_ITALIC_SLANT * Math.max(0, m.actualBoundingBoxDescent + grow);
  }
  const rule = (RULE_EM * size) / 2;
  const rules = [faux.underline ? UNDERLINE_EM : null, faux.strikethrough ? STRIKETHROUGH_EM : null];
  for (const at of rules) {
    if (at === null) continue;
    left = Math.min(left, x);
    right = Math.max(right, x + m.width);
    top = Math.min(top, baseline + at * size - rule);
    under = Math.max(under, baseline + at * size + rule);
  }
  return right > left && under > top ? { x: left, y: top, w: right - left, h: under - top } : EMPTY_RECT;
}

function draw(spec: TextSpec, layout: TextLayout, frame: Rect): Raster {
  const colours: RGB[] = [];
  for (const { color } of layout.styles) if (!colours.some((c) => sameColour(c, color))) colours.push(color);
  if (colours.length <= 1) {
    // One colour: its coverage, given the colour (one solid fill: only coverage varies).
    const data = coverage(spec, layout, frame, () => true);
    const { r, g, b } = colours[0] ?? spec.color;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] === 0) {
        data[i] = 0;
        data[i + 1] = 0;
        data[i + 2] = 0;
      } else {
        data[i] = r;
        data[i + 1] = g;
        data[i + 2] = b;
      }
    }
    return { ...frame, data };
  }
  // Several colours: each colour's characters drawn on their own and laid over the ones before (source over,
  // straight alpha), so where two glyphs' edges meet both show as they would drawn one after the other.
  const out = new Float32Array(frame.w * frame.h * 4);
  for (const colour of colours) {
    const data = coverage(spec, layout, frame, (style) => sameColour(style.color, colour));
    for (let i = 0; i < data.length; i += 4) {
      const a = data[i + 3]! / 255;
      if (a === 0) continue;
      const below = out[i + 3]! * (1 - a);
      const all = a + below;
      out[i] = (colour.r * a + out[i]! * below) / all;
      out[i + 1] = (colour.g * a + out[i + 1]! * below) / all;
      out[i + 2] = (colour.b * a + out[i + 2]! * below) / all;
      out[i + 3] = all;
    }
  }
  const data = new Uint8ClampedArray(out.length);
  for (let i = 0; i < out.length; i += 4) {
    if (out[i + 3] === 0) continue;
    data[i] = Math.round(out[i]!);
    data[i + 1] = Math.round(out[i + 1]!);
    data[i + 2] = Math.round(out[i + 2]!);
    data[i + 3] = Math.round(out[i + 3]! * 255);
  }
  return { ...frame, data };
}

function touchesEdge(inner: Rect, outer: Rect): boolean {
  return (
    inner.x <= outer.x ||
    inner.y <= outer.y ||
    inner.x + inner.w >= outer.x + outer.w ||
    inner.y + inner.h >= outer.y + outer.h
  );
}

/**
 * The rendering of `spec`: straight RGBA trimmed to the ink, in document coordinates. The drawing area comes
 * from the measured glyph boxes plus a margin; should ink still reach its edge (a font with wrong metrics), it
 * is drawn again with a wider margin, so nothing is clipped. Empty when the text has no visible characters.
 */
export function renderText(spec: TextSpec): Raster {
  return drawText(spec).raster;
}

/** renderText's work, with how many of paragraph text's lines its box could not show (TextLayout.hidden). */
function drawText(spec: TextSpec): { raster: Raster; hidden: number } {
  // Below a hundredth of a pixel nothing is visible (and Skia ignores a font string that rounds to 0px).
  if (!(spec.size >= MIN_TEXT_SIZE)) return { raster: emptyAt(spec), hidden: 0 };
  if (spec.warp && spec.warp.bend !== 0 && !isVertical(spec)) return drawWarped(spec, spec.warp);
  return drawLaidOut(spec, layoutText(spec));
}

/** No pixels, at the text's position. */
function emptyAt(spec: TextSpec): Raster {
  return { x: Math.round(spec.x) + 0, y: Math.round(spec.y) + 0, w: 0, h: 0, data: new Uint8ClampedArray(0) };
}

/** Refuses (`out_of_bounds`) a rendering area over MAX_TEXT_PIXELS, saying what would make it smaller. */
function assertTextPixels(w: number, h: number, what: string, hint: string): void {
  if (w * h <= MAX_TEXT_PIXELS) return;
  fail('out_of_bounds', `${what}渲染区域为 ${w}×${h} 像素，超过上限（1 亿像素）`, {
    hint,
    details: { width: w, height: h, max_pixels: MAX_TEXT_PIXELS },
  });
}

/** drawText's work once `spec` is laid out. */
function drawLaidOut(spec: TextSpec, layout: TextLayout): { raster: Raster; hidden: number } {
  const { hidden } = layout;
  if (isEmptyRect(layout.ink)) return { raster: emptyAt(spec), hidden };
  const ink = spec.transform ? transformedBox(layout.ink, spec.transform, textAnchor(spec)) : layout.ink;
  let pad = 2 + Math.ceil(spec.size * 0.02);
  for (let attempt = 0; ; attempt++) {
    const x0 = Math.floor(ink.x) - pad;
    const y0 = Math.floor(ink.y) - pad;
    const frame: Rect = {
      x: x0,
      y: y0,
      w: Math.ceil(ink.x + ink.w) + pad - x0,
      h: Math.ceil(ink.y + ink.h) + pad - y0,
    };
    assertTextPixels(frame.w, frame.h, '文字', '减小字号，或把文字分成更短的行');
    const drawn = draw(spec, layout, frame);
    const bounds = alphaBounds(drawn);
    if (isEmptyRect(bounds)) return { raster: emptyAt(spec), hidden };
    if (!touchesEdge(bounds, frame) || attempt === 2) return { raster: cropRaster(drawn, bounds), hidden };
    pad = pad * 4 + Math.ceil(spec.size / 2);
  }
}

/**
 * Warped text: laid out once, drawn flat and untransformed, then bent over its box and transformed in one
 * resampling.
 */
function drawWarped(spec: TextSpec, warp: TextWarp): { raster: Raster; hidden: number } {
  const { warp: _bent, transform, ...rest } = spec;
  const layout = layoutText(rest);
  const flat = drawLaidOut(rest, layout);
  const box = warpBoxOf(layout, rest.size, warp);
  if (flat.raster.w === 0 || !box) return flat;
  const bent = warpRaster(
    flat.raster,
    box,
    warp.bend,
    { ...(transform ? { matrix: transform } : {}), anchor: textAnchor(spec) },
    (w, h) => assertTextPixels(w, h, '变形文字', '减小字号或弯曲度'),
  );
  const bounds = alphaBounds(bent);
  return { raster: isEmptyRect(bounds) ? emptyAt(spec) : cropRaster(bent, bounds), hidden: flat.hidden };
}

/**
 * The box Photoshop bends (its record's `bounds`), in the text's own space before its transform: the lines'
 * advance from the leftmost start to the rightmost end, from the warp's ascent above the first baseline to its
 * descent below the last. Null for text without a warp or without visible characters.
 */
export function textWarpBox(spec: TextSpec): WarpBox | null {
  if (!spec.warp) return null;
  const { warp: _bent, transform: _m, ...rest } = spec;
  return warpBoxOf(layoutText(rest), rest.size, spec.warp);
}

/**
 * An Arc warp of `bend` % for `spec`, which has none: its box from the font's own ascent and descent (the canvas's
 * font box of the text's first style). Photoshop's box for Arial is 0.858 em above the baseline and 0.325 em below,
 * the font box's 0.905 and 0.212: opened in Photoshop, the same bend stands up to a few pixels apart.
 */
export function newTextWarp(spec: TextSpec, bend: number): TextWarp {
  const { ctx, styles } = styledMeasure(spec);
  ctx.font = styles[0]!.font;
  const m = ctx.measureText('d');
  const size = styles[0]!.size;
  const ascent = m.fontBoundingBoxAscent > 0 ? m.fontBoundingBoxAscent / size : TEXT_BASELINE_EM;
  const descent = m.fontBoundingBoxDescent > 0 ? m.fontBoundingBoxDescent / size : 1 - TEXT_BASELINE_EM;
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return { style: 'arc', bend, ascent: round(ascent), descent: round(descent) };
}

function warpBoxOf(layout: TextLayout, size: number, warp: TextWarp): WarpBox | null {
  let left = Infinity;
  let right = -Infinity;
  for (const line of layout.lines) {
    for (const piece of line.pieces) {
      left = Math.min(left, piece.x);
      // Photoshop's box ends at the last glyph's advance, without the tracking after it (the canvas adds it).
      const style = layout.styles[piece.style]!;
      const end = piece === line.pieces.at(-1) ? style.spacing * style.scaleX : 0;
      right = Math.max(right, piece.x + (piece.width ?? 0) - end);
    }
  }
  const first = layout.lines[0];
  const last = layout.lines.at(-1);
  if (!first || !last || !(right > left)) return null;
  return {
    left,
    right,
    top: first.baseline - warp.ascent * size,
    bottom: last.baseline + warp.descent * size,
  };
}

/**
 * `spec` with `renderedFont` set to the family it is drawn with, its rendering, and how many of paragraph text's
 * lines its box cannot show (Photoshop's overflow; 0 for point text).
 */
export function renderTextSpec(spec: Omit<TextSpec, 'renderedFont'> & { renderedFont?: string }): {
  text: TextSpec;
  raster: Raster;
  fallback: boolean;
  hidden: number;
} {
  const { family, fallback } = resolveFont(spec.font);
  const text: TextSpec = { ...spec, renderedFont: family };
  return { text, ...drawText(text), fallback };
}

/** Whether a scale by `sx, sy` keeps text undistorted enough to re-render it (within 2 %). */
export function isUniformScale(sx: number, sy: number): boolean {
  return Math.max(sx, sy) / Math.min(sx, sy) <= 1.02;
}

/**
 * `spec` scaled by `k` about `pivot` (position and size; the text box's top-left moves with the scale, and a
 * paragraph box grows or shrinks with the text).
 */
export function scaleTextSpec(
  spec: TextSpec,
  kx: number,
  ky: number,
  pivot: { x: number; y: number },
): TextSpec {
  const tidy = (v: number) => Math.round(v * 1e4) / 1e4 + 0;
  const k = Math.sqrt(kx * ky);
  const { box, indent, space } = paragraphOf(spec);
  /** A character style's pixel measures at the new size (tracking is in ems, so it follows by itself). */
  const scaleStyle = <T extends CharacterSettings & { size: number }>(st: T): T => {
    const { leading, baselineShift } = settingsOf(st);
    return {
      ...st,
      size: tidy(st.size * k),
      ...(leading !== undefined ? { leading: tidy(leading * k) } : {}),
      ...(baselineShift !== undefined ? { baselineShift: tidy(baselineShift * k) } : {}),
    };
  };
  const scaleSettings = (p: ParagraphSettings): ParagraphSettings => ({
    ...p,
    ...(p.indent
      ? {
          indent: {
            left: tidy(p.indent.left * k),
            first: tidy(p.indent.first * k),
            right: tidy(p.indent.right * k),
          },
        }
      : {}),
    ...(p.space ? { space: { before: tidy(p.space.before * k), after: tidy(p.space.after * k) } } : {}),
  });
  // Everything measured in the size's units scales with it.
  const scaled: TextSpec = {
    ...scaleStyle(spec),
    x: tidy(pivot.x + (spec.x - pivot.x) * kx),
    y: tidy(pivot.y + (spec.y - pivot.y) * ky),
    ...(box
      ? { box: [tidy(box[0] * k), tidy(box[1] * k), tidy(box[2] * k), tidy(box[3] * k)] as const }
      : {}),
    ...scaleSettings({ ...(indent ? { indent } : {}), ...(space ? { space } : {}) }),
    ...(spec.paragraphs ? { paragraphs: spec.paragraphs.map(scaleSettings) } : {}),
    ...(spec.runs ? { runs: spec.runs.map(scaleStyle) } : {}),
  };
  return scaled;
}

/**
 * The start of the first baseline (vertical text: the top of its first column, text-orientation.ts): the point a
 * text transform turns about, and where a PSD anchors the text.
 */
export function textAnchor(spec: Pick<TextSpec, 'x' | 'y' | 'size' | 'orientation'>): {
  x: number;
  y: number;
} {
  return { x: spec.x, y: spec.y + anchorDrop(spec) };
}

/** The axis-aligned box around `r` after `m` about `anchor`. */
function transformedBox(r: Rect, m: TextMatrix, anchor: { x: number; y: number }): Rect {
  const [a, b, c, d] = m;
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [px, py] of [
    [r.x, r.y],
    [r.x + r.w, r.y],
    [r.x, r.y + r.h],
    [r.x + r.w, r.y + r.h],
  ] as const) {
    const u = px - anchor.x;
    const v = py - anchor.y;
    xs.push(anchor.x + a * u + c * v);
    ys.push(anchor.y + b * u + d * v);
  }
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}

const IDENTITY: TextMatrix = [1, 0, 0, 1];

/** Whether `m` leaves text upright and unscaled (within rounding). */
export function isIdentityMatrix(m: TextMatrix | undefined): boolean {
  return !m || m.every((v, i) => Math.abs(v - IDENTITY[i]!) < 1e-9);
}

/**
 * `spec` after the linear map `op` about `pivot` (document pixels), the text kept editable: the transform
 * becomes op · transform and the anchor moves with the map. A result that is upright again drops the transform.
 */
export function transformTextSpec(spec: TextSpec, op: TextMatrix, pivot: { x: number; y: number }): TextSpec {
  const [a, b, c, d] = op;
  const [e, f, g, h] = spec.transform ?? IDENTITY;
  const tidy = (v: number) => Math.round(v * 1e9) / 1e9 + 0;
  const m: TextMatrix = [tidy(a * e + c * f), tidy(b * e + d * f), tidy(a * g + c * h), tidy(b * g + d * h)];
  const anchor = textAnchor(spec);
  const u = anchor.x - pivot.x;
  const v = anchor.y - pivot.y;
  const ax = pivot.x + a * u + c * v;
  const ay = pivot.y + b * u + d * v;
  const { transform: _old, ...rest } = spec;
  const round = (n: number) => Math.round(n * 1e4) / 1e4 + 0;
  return {
    ...rest,
    x: round(ax),
    y: round(ay - anchorDrop(spec)),
    ...(isIdentityMatrix(m) ? {} : { transform: m }),
  };
}

/** The map rotating by `deg` clockwise on screen (y points down). */
export function rotationMatrix(deg: number): TextMatrix {
  const r = (deg * Math.PI) / 180;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  return [cos, sin, -sin, cos];
}
