/**
 * Text layers: layout and rendering of a TextSpec with @napi-rs/canvas (Skia).
 *
 * Layout: `x, y` is the top-left of the text box. Line i has its baseline at
 * `y + (TEXT_BASELINE_EM + i · LINE_HEIGHT_EM) · size` and starts at `x` (left-aligned). TEXT_BASELINE_EM is the
 * bundled font's ascender (hhea 880/1000, the top of its ideographic em box), so CJK ink starts just below `y`;
 * LINE_HEIGHT_EM is Photoshop's "auto" leading (120 %). The PSD codec uses the same constants to place the
 * baseline Photoshop anchors point text at, so a round trip re-renders in the same place.
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
import { fail } from './errors.js';
import type { Raster, Rect, TextMatrix, TextSpec } from './model.js';
import { alphaBounds, cropRaster, EMPTY_RECT, isEmptyRect, unionRect } from './raster.js';

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
export const TEXT_BASELINE_EM = 0.88;
/** Distance between baselines, in ems: Photoshop's auto leading. */
export const LINE_HEIGHT_EM = 1.2;

/** The largest text rendering we build (width × height); beyond it the call is refused. */
export const MAX_TEXT_PIXELS = 100_000_000;

/** Smaller sizes render nothing. */
const MIN_TEXT_SIZE = 0.01;

/** Layer names Photoshop gives text layers: the first characters of the text. */
const AUTO_NAME_CHARS = 20;

function normalise(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

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
    WEIGHT_BY_NAME.set(normalise(`${stem} ${weight}`), weight);
    if (weight === 'Regular') WEIGHT_BY_NAME.set(normalise(stem), weight);
  }
}

/**
 * The bundled weight closest to what a font name asks for (Photoshop-style style words, or Chinese ones), for
 * a font that is not installed: "Microsoft YaHei Bold" falls back to the bundled Bold, not to Regular.
 */
function weightIn(requested: string): Weight {
  const n = normalise(requested);
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
  /** True when the requested font is not installed and the bundled font is used instead. */
  readonly fallback: boolean;
}

/**
 * The family to draw `requested` with: the bundled font's weight for any of its names, an installed family
 * matching it (case, spaces and hyphens ignored, an optional "Regular" suffix allowed), or else the bundled
 * weight nearest to the style words in the name, as a fallback.
 */
export function resolveFont(requested: string | undefined): ResolvedFont {
  ensureBundledFont();
  const want = normalise(requested ?? '');
  if (want === '') return { family: BUNDLED_FONT, fallback: false };
  const bundled = WEIGHT_BY_NAME.get(want);
  if (bundled) return { family: ensureWeight(bundled), fallback: false };
  for (const f of GlobalFonts.families) {
    const have = normalise(f.family);
    if (have === want || `${have}regular` === want) {
      return { family: f.family, fallback: false };
    }
  }
  return { family: ensureWeight(weightIn(requested ?? '')), fallback: true };
}

/**
 * The font name a PSD should carry for `font`: PSDs name fonts by PostScript name, so any name of a bundled
 * weight becomes its file's PostScript name; any other name (what was asked for, which Photoshop uses where it
 * is installed) is kept as it is.
 */
export function psdFontName(font: string): string {
  const weight = WEIGHT_BY_NAME.get(normalise(font));
  return weight ? `NotoSansHans-${weight}` : font;
}

/**
 * `font` as a designer picks it from a list: any name of a bundled weight (its PostScript name from a file,
 * 思源黑体 Bold…) as that weight's family alias, 'Noto Sans SC Bold'; any other name as it is.
 */
export function fontShownAs(font: string): string {
  const weight = WEIGHT_BY_NAME.get(normalise(font));
  return weight ? familyOf(weight) : font;
}

function fontString(size: number, family: string): string {
  const px = Number(size.toFixed(4));
  const quote = (f: string) => `"${f.replace(/["\\]/g, '')}"`;
  return isBundledFamily(family)
    ? `${px}px ${quote(family)}`
    : `${px}px ${quote(family)}, ${quote(BUNDLED_FONT)}`;
}

/** Splits text into lines the way Photoshop does (`\n`, `\r\n` and `\r` all break). */
export function textLines(content: string): string[] {
  return content.split(/\r\n|\r|\n/);
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

export interface TextLayout {
  readonly font: string;
  readonly lines: readonly { readonly text: string; readonly baseline: number }[];
  /** Where ink can be, document pixels (unrounded, from the font's measured glyph boxes); empty when none. */
  readonly ink: Rect;
}

/** Lines, their baselines and the box their glyphs cover, without drawing anything. */
export function layoutText(spec: TextSpec): TextLayout {
  const { family } = resolveFont(spec.font);
  const font = fontString(spec.size, family);
  const ctx = measureContext();
  ctx.font = font;
  let ink: Rect = EMPTY_RECT;
  const lines = textLines(spec.content).map((text, i) => {
    const baseline = spec.y + (TEXT_BASELINE_EM + i * LINE_HEIGHT_EM) * spec.size;
    if (text.trim() !== '') {
      const m = ctx.measureText(text);
      const left = spec.x - m.actualBoundingBoxLeft;
      const right = spec.x + m.actualBoundingBoxRight;
      const top = baseline - m.actualBoundingBoxAscent;
      const bottom = baseline + m.actualBoundingBoxDescent;
      if (right > left && bottom > top) {
        ink = unionRect(ink, { x: left, y: top, w: right - left, h: bottom - top });
      }
    }
    return { text, baseline };
  });
  return { font, lines, ink };
}

const COVERAGE_INK = '#808080';

function draw(spec: TextSpec, layout: TextLayout, frame: Rect): Raster {
  const canvas = createCanvas(frame.w, frame.h);
  const ctx = canvas.getContext('2d');
  ctx.font = layout.font;
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
  for (const line of layout.lines) {
    if (line.text.trim() !== '') ctx.fillText(line.text, spec.x - ox, line.baseline - oy);
  }
  const data = ctx.getImageData(0, 0, frame.w, frame.h).data;
  const { r, g, b } = spec.color;
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
  const empty: Raster = {
    x: Math.round(spec.x) + 0,
    y: Math.round(spec.y) + 0,
    w: 0,
    h: 0,
    data: new Uint8ClampedArray(0),
  };
  // Below a hundredth of a pixel nothing is visible (and Skia ignores a font string that rounds to 0px).
  if (!(spec.size >= MIN_TEXT_SIZE)) return empty;
  const layout = layoutText(spec);
  if (isEmptyRect(layout.ink)) return empty;
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
    if (frame.w * frame.h > MAX_TEXT_PIXELS) {
      fail('out_of_bounds', `文字渲染区域为 ${frame.w}×${frame.h} 像素，超过上限（1 亿像素）`, {
        hint: '减小字号，或把文字分成更短的行',
        details: { width: frame.w, height: frame.h, max_pixels: MAX_TEXT_PIXELS },
      });
    }
    const drawn = draw(spec, layout, frame);
    const bounds = alphaBounds(drawn);
    if (isEmptyRect(bounds)) return empty;
    if (!touchesEdge(bounds, frame) || attempt === 2) return cropRaster(drawn, bounds);
    pad = pad * 4 + Math.ceil(spec.size / 2);
  }
}

/** `spec` with `renderedFont` set to the family it is drawn with, and its rendering. */
export function renderTextSpec(spec: Omit<TextSpec, 'renderedFont'> & { renderedFont?: string }): {
  text: TextSpec;
  raster: Raster;
  fallback: boolean;
} {
  const { family, fallback } = resolveFont(spec.font);
  const text: TextSpec = { ...spec, renderedFont: family };
  return { text, raster: renderText(text), fallback };
}

/** Whether a scale by `sx, sy` keeps text undistorted enough to re-render it (within 2 %). */
export function isUniformScale(sx: number, sy: number): boolean {
  return Math.max(sx, sy) / Math.min(sx, sy) <= 1.02;
}

/** `spec` scaled by `k` about `pivot` (position and size; the text box's top-left moves with the scale). */
export function scaleTextSpec(
  spec: TextSpec,
  kx: number,
  ky: number,
  pivot: { x: number; y: number },
): TextSpec {
  const tidy = (v: number) => Math.round(v * 1e4) / 1e4 + 0;
  return {
    ...spec,
    x: tidy(pivot.x + (spec.x - pivot.x) * kx),
    y: tidy(pivot.y + (spec.y - pivot.y) * ky),
    size: tidy(spec.size * Math.sqrt(kx * ky)),
  };
}

/** The start of the first baseline: the point a text transform turns about, and where a PSD anchors the text. */
export function textAnchor(spec: Pick<TextSpec, 'x' | 'y' | 'size'>): { x: number; y: number } {
  return { x: spec.x, y: spec.y + TEXT_BASELINE_EM * spec.size };
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
    y: round(ay - TEXT_BASELINE_EM * spec.size),
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

/**
 * `spec` at font size `size`, its text box's top-left corner kept where it is: for upright text that is (x, y)
 * itself; for transformed text the corner the transform carries (x, y) to, so the text grows away from it too.
 */
export function resizeTextSpec(spec: TextSpec, size: number): TextSpec {
  if (!spec.transform) return { ...spec, size };
  const [, , c, d] = spec.transform;
  const b0 = TEXT_BASELINE_EM * spec.size;
  const b1 = TEXT_BASELINE_EM * size;
  // Anchor = corner + M·(0, baseline): the anchor moves by M·(0, b1 − b0); (x, y) is anchor − (0, b1).
  const ax = spec.x + c * (b1 - b0);
  const ay = spec.y + b0 + d * (b1 - b0);
  const round = (n: number) => Math.round(n * 1e4) / 1e4 + 0;
  return { ...spec, size, x: round(ax), y: round(ay - b1) };
}
