/** How layers and documents are reported back to the model: small, flat, in the tools' own units. */
import { contentBounds } from '../engine/bounds.js';
import type { OpenDocument } from '../engine/editor.js';
import type { BlendMode, DocState, Effects, Layer, Locks, Rect, TextSpec } from '../engine/model.js';
import { isEmptyRect, rgbToHex } from '../engine/raster.js';
import { LINE_HEIGHT_EM, textLines } from '../engine/text.js';
import { settingWords } from '../engine/text-character.js';
import { fauxWords } from '../engine/text-decoration.js';
import { paragraphOf } from '../engine/text-paragraph.js';
import { hasRuns, runList } from '../engine/text-runs.js';
import { lineStep, spacingOf } from '../engine/text-spacing.js';
import { layerRef, parentOf } from '../engine/tree.js';
import { pixelsAs } from '../registry/lengths.js';

/** Spec blend-mode names (`color_dodge`) ↔ model names (`color dodge`). */
export function toSpecBlend(mode: BlendMode): string {
  return mode.replace(/ /g, '_');
}

export function fromSpecBlend(mode: string): BlendMode {
  return mode.replace(/_/g, ' ') as BlendMode;
}

export const KIND_NAMES: Record<Layer['kind'], string> = {
  pixel: 'pixel',
  fill: 'fill',
  text: 'text',
  smart: 'smart_object',
  adjustment: 'adjustment',
  group: 'group',
};

export function boundsReport(r: Rect) {
  if (isEmptyRect(r)) return { left: 0, top: 0, width: 0, height: 0, center_x: 0, center_y: 0, empty: true };
  return {
    left: r.x,
    top: r.y,
    width: r.w,
    height: r.h,
    right: r.x + r.w,
    bottom: r.y + r.h,
    center_x: r.x + r.w / 2,
    center_y: r.y + r.h / 2,
  };
}

export type EffectName =
  | 'stroke'
  | 'inner_shadow'
  | 'inner_glow'
  | 'color_overlay'
  | 'gradient_overlay'
  | 'outer_glow'
  | 'drop_shadow';

/** The effects a layer style holds that the engine draws, in the order Photoshop's Layer Style dialog lists them. */
export function effectNames(e: Effects): EffectName[] {
  return [
    ...(e.stroke ? (['stroke'] as const) : []),
    ...(e.innerShadows?.length ? (['inner_shadow'] as const) : []),
    ...(e.innerGlow ? (['inner_glow'] as const) : []),
    ...(e.colorOverlays?.length ? (['color_overlay'] as const) : []),
    ...(e.gradientOverlays?.length ? (['gradient_overlay'] as const) : []),
    ...(e.outerGlow ? (['outer_glow'] as const) : []),
    ...(e.dropShadow ? (['drop_shadow'] as const) : []),
  ];
}

export function layerSummary(state: DocState, layer: Layer) {
  const parent = parentOf(state, layer.id);
  const ref = layerRef(state, layer.id);
  return {
    id: layer.id,
    name: layer.name,
    // Several layers share the name: what a call names this one by.
    ...(ref !== layer.name ? { ref } : {}),
    type: KIND_NAMES[layer.kind],
    visible: layer.visible,
    opacity: Math.round(layer.opacity * 1000) / 10,
    // Photoshop's fill opacity, only when below 100 % (the layer's own pixels fade, its effects do not).
    ...(layer.fillOpacity !== undefined && layer.fillOpacity < 1
      ? { fill_opacity: Math.round(layer.fillOpacity * 1000) / 10 }
      : {}),
    blend_mode: toSpecBlend(layer.blend),
    locked: layer.locks.all,
    // Photoshop's partial locks (a file's position, image-pixel or transparency lock), when not all is locked.
    ...partialLocks(layer),
    ...(layer.clipped ? { clipped: true } : {}),
    ...(layer.mask ? { mask: true } : {}),
    // Its layer style, by the tools that add each effect (Photoshop's fx mark).
    ...(layer.effects && effectNames(layer.effects).length ? { effects: effectNames(layer.effects) } : {}),
    ...((layer.kind === 'pixel' || layer.kind === 'fill') && layer.background ? { background: true } : {}),
    ...(parent !== null ? { group: state.layers.get(parent)?.name } : {}),
    bounds: boundsReport(contentBounds(state, layer.id)),
  };
}

/** `{ locks }`, the partial locks a layer has; nothing when it has none or is wholly locked (that is `locked`). */
function partialLocks(layer: Layer): { locks?: Exclude<keyof Locks, 'all'>[] } {
  if (layer.locks.all) return {};
  const locks = (['position', 'pixels', 'transparency'] as const).filter((k) => layer.locks[k]);
  return locks.length ? { locks } : {};
}

export function documentSummary(doc: OpenDocument) {
  const s = doc.state;
  const active = s.active !== null ? s.layers.get(s.active) : undefined;
  return {
    name: doc.name,
    width: s.width,
    height: s.height,
    resolution: s.dpi,
    mode: s.mode === 'cmyk' ? ('CMYK' as const) : ('RGB' as const),
    layer_count: s.layers.size,
    active_layer: active?.name ?? null,
    path: doc.path,
    unsaved_changes: doc.dirty,
  };
}

/**
 * The document's size on paper at its resolution, to 0.1 mm and 0.01 in (an A4 page of 2480 × 3508 px at 300 DPI
 * is 210 × 297 mm, 8.27 × 11.69 in): what the studio's status bar shows.
 */
export function physicalSize(doc: OpenDocument) {
  const { width, height, dpi } = doc.state;
  return {
    width_mm: pixelsAs(width, dpi, 'mm', 1),
    height_mm: pixelsAs(height, dpi, 'mm', 1),
    width_in: pixelsAs(width, dpi, 'in', 2),
    height_in: pixelsAs(height, dpi, 'in', 2),
  };
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000 + 0;
}

/**
 * A text's leading (fixed or auto), tracking, indents and paragraph space, as the model reads and
 * set_text_spacing sets them.
 */
export function spacingSummary(t: TextSpec) {
  const { leading, tracking } = spacingOf(t);
  const { indent, space } = paragraphOf(t);
  return {
    line_height: round3(lineStep(t, LINE_HEIGHT_EM)),
    leading: leading !== undefined ? ('fixed' as const) : ('auto' as const),
    tracking: tracking ?? 0,
    indent: indent ?? { left: 0, first: 0, right: 0 },
    space: space ?? { before: 0, after: 0 },
  };
}

/** A text's stretches of one style each: their characters, font, size, colour and other character styles. */
function styleSummary(t: TextSpec) {
  let at = 0;
  return runList(t).map((r) => {
    const text = t.content.slice(at, at + r.length);
    at += r.length;
    return {
      text,
      font: r.font,
      size: r.size,
      color: rgbToHex(r.color),
      ...fauxWords(r),
      ...settingWords(r),
    };
  });
}

/** What the model needs to know about a text layer's text. */
export function textSummary(t: TextSpec) {
  const { tracking } = spacingOf(t);
  const { indent, space } = paragraphOf(t);
  // The character panel's other settings (the line's leading and the tracking are stated below).
  const { leading: _leading, tracking: _tracking, ...character } = settingWords(t);
  return {
    content: t.content,
    x: t.x,
    y: t.y,
    size: t.size,
    color: rgbToHex(t.color),
    font: t.font,
    rendered_font: t.renderedFont,
    // Photoshop's faux styles on (the first character's where the styles below differ).
    ...fauxWords(t),
    ...character,
    lines: textLines(t.content).length,
    // Set in columns (直排): x, y is the top of the first column on its centre line (a box's top-left for paragraph text).
    ...(t.orientation === 'vertical' ? { orientation: 'vertical' } : {}),
    // The leading, fixed or auto; tracking in thousandths of an em (Photoshop's character panel).
    line_height: round3(lineStep(t, LINE_HEIGHT_EM)),
    ...(tracking !== undefined ? { tracking } : {}),
    // Centred or right text is placed about x; paragraph text wraps in its box, whose top-left x, y is.
    ...(t.justification && t.justification !== 'left' ? { justification: t.justification } : {}),
    ...(t.box ? { box: { width: round3(t.box[2] - t.box[0]), height: round3(t.box[3] - t.box[1]) } } : {}),
    ...(indent ? { indent } : {}),
    ...(space ? { space } : {}),
    // Paragraphs set differently (a PSD's): each one's alignment, indents and space; the fields above are the first's.
    ...(t.paragraphs ? { paragraphs: t.paragraphs } : {}),
    // Characters set differently (style_text_range, a PSD's style runs): each stretch and its style; the fields
    // above are the first's.
    ...(hasRuns(t) ? { styles: styleSummary(t) } : {}),
    // Photoshop's Arc warp (扇形), kept through edits: its bend in percent, up (positive) or down.
    ...(t.warp ? { warp: { style: t.warp.style, bend: t.warp.bend } } : {}),
    // Rotated, flipped or stretched text: the angle its baseline runs at, and the whole linear map.
    ...(t.transform
      ? {
          rotation: round3((Math.atan2(t.transform[1], t.transform[0]) * 180) / Math.PI),
          transform: t.transform.map((v) => Math.round(v * 1e6) / 1e6 + 0),
        }
      : {}),
  };
}
