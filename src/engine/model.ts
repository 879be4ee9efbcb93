/**
 * The document model. Everything here is immutable once committed: an edit builds a new DocState that
 * shares every unchanged layer and buffer with the previous one, which is what makes undo and rollback free.
 */
import type { JUSTIFICATIONS } from '../registry/tools/text-params.js';

/** A rectangle in document pixels; origin top-left, x right, y down. */
export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/**
 * Straight (not premultiplied) RGBA8 pixels covering `w × h` at document position `x, y`.
 * A layer holds only its content; pixels may lie outside the canvas, as in PSD. `w = h = 0` is empty.
 */
export interface Raster extends Rect {
  readonly data: Uint8ClampedArray;
  /** The press inks these pixels were read from (a CMYK file): written back as they were while unchanged. */
  readonly inks?: RasterInks;
}

/**
 * A CMYK file's inks for a raster's pixels. The engine edits sRGB, and separating that sRGB again would not give
 * the file's inks back (a 100 % K black comes back as a four-colour black): while the raster's pixels and the
 * press profile are the ones they were read with, saving writes these inks instead. Operations that build a new
 * raster from an old one may carry this along; the fingerprints tell when it no longer applies.
 */
export interface RasterInks {
  /** C, M, Y, K ink amounts (0 = none), four bytes per pixel of the raster's rectangle. */
  readonly cmyk: Uint8Array;
  /** Fingerprint of the ICC profile the inks were read with. */
  readonly profile: string;
  /** Fingerprint of the raster's size and RGBA bytes as read (raster-inks.ts `pixelFingerprint`). */
  readonly pixels: string;
}

/**
 * A CMYK document's memo of separations: for each colour it holds that came from a separation (the conversion's
 * pixels and colours, a colour chosen since — text, fills, strokes), the inks it came from. A pixel of that
 * colour anywhere — painted later, in an edited layer, in the merged image — is written with those inks, as
 * Photoshop keeps a CMYK document's inks, instead of a second separation of the round-tripped colour. Any of the
 * inks recorded for a colour shows as that colour, so the memo is true of every state of the document: it is
 * shared by them and only ever added to (the one thing in a DocState that changes after it is committed).
 * Open addressing on typed arrays (raster-inks.ts): keys 0x1RRGGBB (0 = empty), values C·2²⁴ + M·2¹⁶ + Y·2⁸ + K.
 */
export interface InkTable {
  /** Fingerprint of the press profile the inks were separated with. */
  readonly profile: string;
  keys: Uint32Array;
  values: Uint32Array;
  count: number;
}

/** A one-channel 8-bit mask (255 = fully shown/selected); `outside` is the value beyond its rectangle. */
export interface Mask extends Rect {
  readonly data: Uint8Array;
  readonly outside: 0 | 255;
}

export interface RGB {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

/** The spec's sixteen blend modes, by their ag-psd / Photoshop names. */
export const SPEC_BLEND_MODES = [
  'normal',
  'multiply',
  'screen',
  'overlay',
  'darken',
  'lighten',
  'color dodge',
  'color burn',
  'soft light',
  'hard light',
  'difference',
  'exclusion',
  'hue',
  'saturation',
  'color',
  'luminosity',
] as const;

/** Every blend mode a document can hold: the spec's, then the rest of Photoshop's (from PSDs). */
export const BLEND_MODES = [
  ...SPEC_BLEND_MODES,
  'pass through',
  'dissolve',
  'linear burn',
  'linear dodge',
  'darker color',
  'lighter color',
  'vivid light',
  'linear light',
  'pin light',
  'hard mix',
  'subtract',
  'divide',
] as const;

export type BlendMode = (typeof BLEND_MODES)[number];

const KNOWN_BLEND_MODES: ReadonlySet<string> = new Set<BlendMode>(BLEND_MODES);

export function isBlendMode(m: unknown): m is BlendMode {
  return typeof m === 'string' && KNOWN_BLEND_MODES.has(m);
}

export interface StrokeEffect {
  readonly size: number;
  readonly position: 'outside' | 'inside' | 'center';
  readonly color: RGB;
  /** 0..1 */
  readonly opacity: number;
  readonly blend: BlendMode;
}

export interface DropShadowEffect {
  readonly distance: number;
  /** Degrees; Photoshop's convention: 120 casts the shadow down and to the right. */
  readonly angle: number;
  /** Blur size in pixels. */
  readonly size: number;
  /** Spread 0..100 (percent). */
  readonly spread: number;
  /** 0..1 */
  readonly opacity: number;
  readonly color: RGB;
  readonly blend: BlendMode;
}

/**
 * Photoshop's Color Overlay (颜色叠加): the layer's shape painted over its own pixels in `color` with `blend`, as a
 * layer clipped to it would be (not faded by the fill opacity). Read from a file's style; no tool makes one.
 */
export interface ColorOverlayEffect {
  readonly color: RGB;
  /** 0..1 */
  readonly opacity: number;
  /** Normal when absent. */
  readonly blend?: BlendMode;
}

/** A stop of a layer style's gradient: `at` 0..1 along it, `mid` where between it and the next the mix is half. */
export interface StyleGradientStop<T> {
  readonly at: number;
  readonly value: T;
  /** 0..1 of the way to the next stop; 0.5 is even. */
  readonly mid: number;
}

/**
 * Photoshop's Gradient Overlay (渐变叠加) with the Classic method: colour and opacity stops, each run through a
 * spline at `smoothness` 1 (see engine/style-gradient.ts), laid across the layer's bounds (`alignWithLayer`) or the
 * canvas at `angle` (degrees, Photoshop's: 90 runs upwards), `scale` 1 spanning the box, moved by `offset`
 * (fractions of the box). Read from a file's style; no tool makes one.
 */
export interface GradientOverlayEffect {
  readonly blend: BlendMode;
  /** 0..1 */
  readonly opacity: number;
  readonly colors: readonly StyleGradientStop<RGB>[];
  /** 0..1 each. */
  readonly opacities: readonly StyleGradientStop<number>[];
  /** 0..1 (Photoshop's Smoothness). */
  readonly smoothness: number;
  /** Classic when absent. */
  readonly method?: 'smooth';
  readonly style: 'linear' | 'reflected';
  readonly angle: number;
  readonly scale: number;
  readonly reverse: boolean;
  readonly alignWithLayer: boolean;
  readonly offset: { readonly x: number; readonly y: number };
  readonly dither: boolean;
}

/**
 * Photoshop's Inner Shadow (内阴影): the layer's surroundings cast inwards, as a drop shadow of everything outside
 * its shape, seen inside it. `spread` is Photoshop's Choke. Read from a file's style; no tool makes one.
 */
export type InnerShadowEffect = DropShadowEffect;

/**
 * Photoshop's Outer and Inner Glow (外发光, 内发光) in a solid colour with the Softer technique: the shape's edge
 * widened by `spread` (percent of the size: Spread or Choke) and blurred by the rest of `size`; `range` (0..1)
 * stretches the glow's strength through the linear contour. An inner glow starts at the `edge` or the `center`.
 * Read from a file's style; no tool makes one.
 */
export interface GlowEffect {
  readonly size: number;
  readonly spread: number;
  /** 0..1 */
  readonly opacity: number;
  readonly color: RGB;
  readonly blend: BlendMode;
  readonly range: number;
  readonly source?: 'edge' | 'center';
}

/**
 * A solid colour fill layer's overlays are drawn into a raster the canvas's size: on a canvas of up to this many
 * pixels (on a larger one they are kept and not drawn, and the open call says so).
 */
export const FILL_OVERLAY_MAX_PIXELS = 50_000_000;

export interface Effects {
  readonly stroke?: StrokeEffect;
  readonly dropShadow?: DropShadowEffect;
  /** Bottom to top, as they are painted (a file's style may hold several); above the gradient overlays. */
  readonly colorOverlays?: readonly ColorOverlayEffect[];
  /** Bottom to top, below the colour overlays. */
  readonly gradientOverlays?: readonly GradientOverlayEffect[];
  /** Above the overlays, below the inner shadows. */
  readonly innerGlow?: GlowEffect;
  /** Bottom to top, above the inner glow. */
  readonly innerShadows?: readonly InnerShadowEffect[];
  /** Below the layer, above its drop shadow. */
  readonly outerGlow?: GlowEffect;
}

export interface Locks {
  /** Lock all: refuses pixel, position and property changes. */
  readonly all: boolean;
  readonly pixels: boolean;
  readonly position: boolean;
  readonly transparency: boolean;
}

interface LayerBase {
  /** Stable across undo and redo. */
  readonly id: number;
  readonly name: string;
  readonly visible: boolean;
  /** 0..1, the whole layer: its pixels and its effects. */
  readonly opacity: number;
  /**
   * Photoshop's fill opacity (填充不透明度), 0..1: fades the layer's own pixels but not its effects, so a shape at
   * 0 shows only its stroke or shadow. Absent means 1.
   */
  readonly fillOpacity?: number;
  readonly blend: BlendMode;
  /** Clipped to the nearest unclipped layer below it (a clipping group). */
  readonly clipped: boolean;
  readonly locks: Locks;
  readonly mask?: LayerMask;
  readonly effects?: Effects;
  /** What a PSD held for the layer that the engine does not interpret, written back with it (io/psd.ts). */
  readonly psd?: PsdLayerData;
}

export interface LayerMask extends Mask {
  readonly enabled: boolean;
  /**
   * Photoshop's mask density, 0..1 (absent = 1): at d the mask hides only d of what it hides at full density,
   * shown = 1 − d·(1 − mask).
   */
  readonly density?: number;
  /** Photoshop's mask feather, a blur radius in pixels (absent = 0). */
  readonly feather?: number;
  /** The file's "position relative to layer" flag, written back as read. */
  readonly relative?: boolean;
}

/**
 * A PSD layer's properties that the engine neither shows nor edits, as ag-psd reads and writes them (plain
 * data), so that open → edit → save does not drop them. io/psd.ts decides per property which edits make it
 * wrong, and leaves it out then.
 */
export interface PsdLayerData {
  /** ag-psd `Layer` fields written back unchanged (Blend If, knockout, advanced blending, colour label, …). */
  readonly props?: Readonly<Record<string, unknown>>;
  /**
   * The file's whole layer style as ag-psd read it, and the `effects` the engine made of it: while the layer's
   * `effects` is still that very object (`of`), the style is written back as read, switched-off and unsupported
   * effects included; after an edit, the engine's stroke and shadow replace the file's and the rest is kept.
   */
  readonly style?: { readonly of: Effects | undefined; readonly fx: Readonly<Record<string, unknown>> };
}

export interface PixelLayer extends LayerBase {
  readonly kind: 'pixel';
  readonly raster: Raster;
  /** Photoshop's background layer (`背景`): opaque, at the bottom. */
  readonly background?: boolean;
}

/** A solid colour covering the whole canvas, stored without pixels (the lazy background). */
export interface FillLayer extends LayerBase {
  readonly kind: 'fill';
  readonly color: RGB;
  readonly background?: boolean;
  /** Read from a Photoshop solid colour fill layer: written as one again (with its current colour). */
  readonly solidColorLayer?: boolean;
}

/** A paragraph's alignment, as a PSD states it (ag-psd's `justification`). */
export type Justification = (typeof JUSTIFICATIONS)[number];

/** Paragraph text's box `[left, top, right, bottom]`, text space, relative to the PSD transform's origin. */
export type TextBox = readonly [number, number, number, number];

/**
 * A paragraph's indents in the units of the font size, as Photoshop's paragraph panel sets them: from the left
 * and right edges, and the first line's further indent (negative: a hanging first line). See text-paragraph.ts.
 */
export interface TextIndent {
  readonly left: number;
  readonly first: number;
  readonly right: number;
}

/**
 * Space added above and below each paragraph in the units of the font size, as Photoshop's paragraph panel sets
 * it (negative: paragraphs drawn closer). See text-paragraph.ts.
 */
export interface TextSpace {
  readonly before: number;
  readonly after: number;
}

/**
 * Photoshop's character panel's synthetic styles (仿粗体, 仿斜体, 下划线, 删除线), each present only when on. See
 * text-decoration.ts.
 */
export interface FauxStyles {
  readonly fauxBold?: true;
  readonly fauxItalic?: true;
  readonly underline?: true;
  readonly strikethrough?: true;
}

/**
 * The rest of Photoshop's character panel (text-character.ts), each absent at its default: leading and tracking,
 * baseline shift, the glyphs' scales, case and position.
 */
export interface CharacterSettings {
  /**
   * Distance between baselines, in the units of the size (Photoshop's fixed leading); absent: auto leading, 120 % of
   * the size. A line's leading is the largest of its characters'. See text-spacing.ts.
   */
  readonly leading?: number;
  /** Space added after every character, in thousandths of an em (Photoshop's tracking); absent: none. */
  readonly tracking?: number;
  /**
   * Space added before every character, in thousandths of an em of the character before it (Photoshop's manual
   * kerning, set between two characters and stored on the second); absent: none. See text-character.ts.
   */
  readonly kerning?: number;
  /** Pixels the characters stand above their line's baseline (negative: below it); absent: none. */
  readonly baselineShift?: number;
  /** The glyphs' width and height against their design (1: as designed); absent: 1. */
  readonly horizontalScale?: number;
  readonly verticalScale?: number;
  /** Letters drawn as capitals (`all`), or lowercase ones as smaller capitals (`small`); absent: as typed. */
  readonly caps?: 'all' | 'small';
  /** Smaller characters raised or lowered (Photoshop's synthesised superscript and subscript); absent: neither. */
  readonly position?: 'superscript' | 'subscript';
  /**
   * The share (0–1) of the blank space beside each glyph, between its ink and its advance, taken out (Photoshop's
   * tsume, 比例间距); absent: none.
   */
  readonly tsume?: number;
  /**
   * In a column, Latin letters, digits and other half-width characters standing upright, an em each, instead of
   * turned a quarter (Photoshop's Standard Vertical Roman Alignment off); horizontal lines draw nothing of it.
   */
  readonly upright?: true;
}

/** What one character of a text is set in: Photoshop's character panel, font, size and colour first. */
export interface CharacterStyle extends FauxStyles, CharacterSettings {
  readonly font: string;
  /** Pixels, as TextSpec's `size`. */
  readonly size: number;
  readonly color: RGB;
}

/** `length` characters (UTF-16 code units of the content) in one style. */
export interface TextRun extends CharacterStyle {
  readonly length: number;
}

/** One paragraph's alignment, indents and space, where a text's paragraphs differ (a PSD's paragraph runs). */
/** A text layer's warp: Photoshop's Arc, horizontal, without distortion (text-warp.ts). */
export interface TextWarp {
  readonly style: 'arc';
  /** Photoshop's 弯曲, −100…100 %: up (positive) or down, a half circle at ±100. */
  readonly bend: number;
  /** The warped box's top above the first baseline and bottom below the last, in ems of the text's size. */
  readonly ascent: number;
  readonly descent: number;
}

export interface ParagraphSettings {
  readonly justification?: Justification;
  readonly indent?: TextIndent;
  readonly space?: TextSpace;
}

export interface TextSpec extends FauxStyles, CharacterSettings {
  readonly content: string;
  /**
   * Document pixels. Paragraph text (`box`): the box's top-left. Point text: `x` is where the first line starts,
   * is centred or ends (by `justification`), `y` the top of its em box (the anchor, the first baseline, lies
   * TEXT_BASELINE_EM · size below); for left-aligned text, what create_text_layer makes, the top-left. See text.ts.
   */
  readonly x: number;
  readonly y: number;
  /**
   * Set in columns (Photoshop's vertical type, 直排; text-vertical.ts): top to bottom, right to left. Then `x, y` is
   * the anchor itself, the top of the first column on its centre line (paragraph text: its box's top-left).
   * Absent: horizontal.
   */
  readonly orientation?: 'vertical';
  /** Paragraph alignment (text-paragraph.ts); absent: left. */
  readonly justification?: Justification;
  /** Paragraph (box) text's box, as the PSD states it; absent: point text. */
  readonly box?: TextBox;
  /** The paragraphs' indents (text-paragraph.ts); absent: none. */
  readonly indent?: TextIndent;
  /** Space before and after the paragraphs (text-paragraph.ts); absent: none. */
  readonly space?: TextSpace;
  /** Photoshop's Arc warp (文字变形 › 扇形) of horizontal point text (text-warp.ts); absent: unwarped. */
  readonly warp?: TextWarp;
  /**
   * Each paragraph's own settings, first paragraph first, where they differ from one paragraph to the next (the
   * fields above then hold the first paragraph's); absent where every paragraph shares the fields above. A
   * paragraph past the list's end takes its last entry's. See text-paragraph.ts.
   */
  readonly paragraphs?: readonly ParagraphSettings[];
  /**
   * Characters set in another font, size, colour or other character style than the rest (Photoshop's style runs),
   * in order, covering the whole content (line breaks included); absent where every character has the spec's own.
   * Where present, `font`, `size`, `color`, the faux styles and the character settings are the first run's, so
   * the anchor follows the first character's size, as a PSD's transform origin does. See text-runs.ts.
   */
  readonly runs?: readonly TextRun[];
  /**
   * Font size in pixels, as a PSD's style states it: the glyphs are laid out at this size, then drawn through
   * `transform` (so text with a scaled transform shows larger or smaller than `size`, as in Photoshop's file).
   */
  readonly size: number;
  readonly color: RGB;
  /** The font asked for, and the family actually used to render. */
  readonly font: string;
  readonly renderedFont: string;
  /**
   * Rotation, flip, skew or scale of the text, as Photoshop keeps it (editable): the linear part
   * [xx, xy, yx, yy] of the text transform, applied about the anchor, the start of the first baseline at
   * (x, y + TEXT_BASELINE_EM · size). A point at offset (u, v) from the anchor in the untransformed layout is
   * drawn at anchor + (xx·u + yx·v, xy·u + yy·v). Absent for upright text, which `x, y` place directly.
   */
  readonly transform?: TextMatrix;
}

/** The linear part [xx, xy, yx, yy] of a 2-D transform (canvas `setTransform(a, b, c, d, …)` order). */
export type TextMatrix = readonly [number, number, number, number];

export interface TextLayer extends LayerBase {
  readonly kind: 'text';
  readonly text: TextSpec;
  /** Rendering of `text`; rebuilt whenever the spec changes. */
  readonly raster: Raster;
  /** The text as the PSD it was read from held it, written back while the text is unchanged (io/psd.ts). */
  readonly psdText?: PsdText;
}

/**
 * A PSD's text record (ag-psd's `text`: paragraph box, style runs, alignment, tracking, …, more than a TextSpec
 * holds) with the spec read from it. While the layer's spec is that spec, or that spec moved, the record goes
 * back into the file as it was (moved with it), so an unedited text layer keeps everything Photoshop gave it.
 */
export interface PsdText {
  readonly spec: TextSpec;
  readonly mode: ColorMode;
  readonly record: Readonly<Record<string, unknown>>;
}

/** Placement of a smart object's source: scale about its centre, then rotation, then position. */
export interface SmartTransform {
  /** Centre of the placed content, document pixels. */
  readonly cx: number;
  readonly cy: number;
  /** 1 = source size; negative values flip. */
  readonly scaleX: number;
  readonly scaleY: number;
  /** Degrees, clockwise. */
  readonly angle: number;
}

export interface SmartLayer extends LayerBase {
  readonly kind: 'smart';
  /** The original pixels, kept at full quality; `raster` is re-rendered from it on every transform. */
  readonly source: Raster;
  readonly transform: SmartTransform;
  readonly raster: Raster;
  /** The file embedded in the PSD the layer was read from: written back as it was while `source` is unchanged. */
  readonly embedded?: SmartEmbedded;
}

export interface SmartEmbedded {
  /** The `source` decoded from the file: the file still holds the layer's content while `source` is this object. */
  readonly source: Raster;
  /** ag-psd's `LinkedFile` record, bytes (`data`) included, as read. */
  readonly file: Readonly<Record<string, unknown>>;
  /** ag-psd `placedLayer` fields other than its corners (type, size, resolution, …), as read. */
  readonly placed: Readonly<Record<string, unknown>>;
}

/**
 * A Photoshop adjustment layer (Curves, Levels, Hue/Saturation, …) read from a PSD: kept in the stack with its
 * settings, mask and place, and written back as it was read, so a file's adjustments survive a round trip. The
 * engine does not draw it: the preview shows the layers below unadjusted (the open call says so).
 */
export interface AdjustmentLayer extends LayerBase {
  readonly kind: 'adjustment';
  /** ag-psd's `adjustment` record, as read: its `type` names the adjustment. */
  readonly adjustment: Readonly<Record<string, unknown>> & { readonly type: string };
}

export interface GroupLayer extends LayerBase {
  readonly kind: 'group';
  /** Child layer ids, bottom → top (ag-psd order). */
  readonly children: readonly number[];
  readonly open: boolean;
}

export type Layer = PixelLayer | FillLayer | TextLayer | SmartLayer | AdjustmentLayer | GroupLayer;
export type LayerKind = Layer['kind'];

export interface Guide {
  readonly direction: 'horizontal' | 'vertical';
  /** Document pixels from the top (horizontal) or left (vertical) edge. */
  readonly position: number;
}

export type ColorMode = 'rgb' | 'cmyk';

/**
 * One thing a file held that the document opened from it could not keep: a short Chinese phrase (e.g.
 * 图层“标题”的矢量蒙版路径), and the layer it concerns, if one (deleted, it no longer matters).
 */
export interface Loss {
  readonly what: string;
  readonly layer?: number;
}

/** One immutable state of a document: one history step. */
export interface DocState {
  readonly width: number;
  readonly height: number;
  /** Pixels per inch. */
  readonly dpi: number;
  readonly mode: ColorMode;
  readonly layers: ReadonlyMap<number, Layer>;
  /** Top-level layer ids, bottom → top. */
  readonly root: readonly number[];
  /** The active layer, or null when the document has none. */
  readonly active: number | null;
  /** The layer selection (ids); the active layer alone when nothing else is selected. */
  readonly selected: readonly number[];
  /**
   * The pixel selection (document-sized semantics), null when there is none. A marquee is stored without pixels
   * until its `data` is read (engine/selection.ts `uniformRect`): ask selection.ts before reading it.
   */
  readonly selection: Mask | null;
  readonly guides: readonly Guide[];
  readonly foreground: RGB;
  /** The next layer id to hand out; never reused, so ids stay stable across undo. */
  readonly nextId: number;
  /** A CMYK document's memo of the inks its colours were separated with (InkTable). */
  readonly inkTable?: InkTable;
  /**
   * A CMYK document's own ICC profile (press-profile.ts `documentProfile`): the one embedded in the file it was
   * opened from, when that is not the press profile. Absent: the press profile.
   */
  readonly cmykProfile?: Uint8Array;
  /**
   * What the PSD it was opened from held for the whole document that the engine does not interpret, as ag-psd
   * reads it (`imageResources`: XMP, layer comps, copyright, global light, …; `artboards`): written back
   * unchanged (io/psd.ts).
   */
  readonly psdDocument?: Readonly<Record<string, unknown>>;
  /**
   * Spot and alpha channels (Photoshop's Channels panel below the colour channels), in the file's order: kept
   * from the PSD the document was opened from and written back to it; not drawn, not editable.
   */
  readonly channels?: readonly DocChannel[];
}

/**
 * A spot or alpha channel of a document: one byte per canvas pixel, row by row, as a PSD stores it (0 is black in
 * the Channels panel: full ink on a spot plate, unselected in an alpha channel).
 */
export interface DocChannel {
  readonly name: string;
  readonly kind: 'spot' | 'alpha';
  /** width × height bytes. */
  readonly data: Uint8Array;
  /** Photoshop's identifier of the channel (image resource 1053), which its alternate spot colours name. */
  readonly identifier?: number;
  /** Photoshop's display record of the channel (image resource 1077: colour, solidity, kind), as read. */
  readonly display?: Uint8Array;
}
