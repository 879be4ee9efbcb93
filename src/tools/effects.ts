/**
 * Group C layer effects (SPEC.md §4.3): add_stroke, add_drop_shadow, clear_layer_effects.
 *
 * Live effects, as Photoshop's layer styles: only `layer.effects` changes, the layer's pixels are untouched and
 * the compositor draws the stroke above the layer and the shadow below it (engine/composite/effects.ts). Adding a
 * stroke keeps an existing shadow and vice versa; adding one again replaces that effect's parameters.
 *
 * Photoshop is the reference where the spec is silent: the Background layer takes no layer styles; Lock All
 * (on the layer or a group above it) refuses them, the pixel and position locks do not; text and smart objects
 * take them, and so do groups, whose effects follow the outline of their composite (a group with effects
 * blends as one layer). Colour fill layers cover the canvas, so the compositor does not draw effects for them:
 * those are refused rather than storing an effect nobody would see.
 */
import type { OpenDocument } from '../engine/editor.js';
import { fail } from '../engine/errors.js';
import { BLACK } from '../engine/factory.js';
import type {
  BlendMode,
  DocState,
  DropShadowEffect,
  Effects,
  GlowEffect,
  Layer,
  StrokeEffect,
} from '../engine/model.js';
import { rgbToHex } from '../engine/raster.js';
import { layerById, setActive, setLayer } from '../engine/tree.js';
import { effectNames, layerSummary } from './describe.js';
import { assertFree, refuseBackground } from './guards.js';
import { heldColorFields } from './held-color.js';
import { activateOnly, activeDoc, layerNamed } from './resolve.js';
import type { Payload, ToolContext, ToolHandlers } from './types.js';

// ---------------------------------------------------------------------------------------------------------
// Shared with masks.ts

/** Commits `next` with `id` as the active layer: the call's single update. */
export function commitActive(ctx: ToolContext, doc: OpenDocument, next: DocState, id: number): DocState {
  const state = setActive(next, id);
  ctx.tx.update(doc.id, state);
  return state;
}

/** A call that changed nothing: says why, activates the layer, adds no history step. */
export function unchanged(
  ctx: ToolContext,
  doc: OpenDocument,
  layer: Layer,
  note: string,
  extra: Payload = {},
) {
  const s = activateOnly(ctx, doc, layer.id);
  return { changed: false, note, ...extra, layer: layerSummary(s, layerById(s, layer.id)) };
}

// ---------------------------------------------------------------------------------------------------------
// Effects

const POSITION_NAMES: Record<StrokeEffect['position'], string> = {
  outside: '外部',
  inside: '内部',
  center: '居中',
};

function percent(v: number): number {
  return Math.round(v * 1000) / 10;
}

/**
 * The effects only a PSD's style brings (no tool makes them): colour and gradient overlays (top one first, as
 * Photoshop lists them), inner shadows, inner and outer glow; a blend mode other than normal named.
 */
export function fileEffectsReport(e: Effects | undefined) {
  const colors = [...(e?.colorOverlays ?? [])].reverse();
  const gradients = [...(e?.gradientOverlays ?? [])].reverse();
  const shadows = [...(e?.innerShadows ?? [])].reverse();
  const mode = (blend: BlendMode | undefined) => (blend && blend !== 'normal' ? { blend_mode: blend } : {});
  const glow = (g: GlowEffect) => ({
    size: g.size,
    spread: g.spread,
    color: rgbToHex(g.color),
    opacity: percent(g.opacity),
    range: percent(g.range),
    ...(g.source ? { source: g.source } : {}),
    ...mode(g.blend),
  });
  return {
    ...(colors.length
      ? {
          color_overlay: colors.map((o) => ({
            color: rgbToHex(o.color),
            opacity: percent(o.opacity),
            ...mode(o.blend),
          })),
        }
      : {}),
    ...(gradients.length
      ? {
          gradient_overlay: gradients.map((g) => ({
            style: g.style,
            angle: g.angle,
            scale: percent(g.scale),
            reverse: g.reverse,
            opacity: percent(g.opacity),
            colors: g.colors.map((c) => ({ at: percent(c.at), color: rgbToHex(c.value) })),
            ...mode(g.blend),
          })),
        }
      : {}),
    ...(shadows.length
      ? {
          inner_shadow: shadows.map((d) => ({
            distance: d.distance,
            size: d.size,
            angle: d.angle,
            choke: d.spread,
            color: rgbToHex(d.color),
            opacity: percent(d.opacity),
            ...mode(d.blend),
          })),
        }
      : {}),
    ...(e?.innerGlow ? { inner_glow: glow(e.innerGlow) } : {}),
    ...(e?.outerGlow ? { outer_glow: glow(e.outerGlow) } : {}),
  };
}

/** The layer's effects as the model sees them, in the tools' units (px, %, degrees, hex). */
export function effectsReport(e: Effects | undefined) {
  const s = e?.stroke;
  const d = e?.dropShadow;
  return {
    stroke: s
      ? { size: s.size, position: s.position, color: rgbToHex(s.color), opacity: percent(s.opacity) }
      : null,
    ...fileEffectsReport(e),
    drop_shadow: d
      ? {
          distance: d.distance,
          size: d.size,
          angle: d.angle,
          opacity: percent(d.opacity),
          color: rgbToHex(d.color),
          spread: d.spread,
          blend_mode: d.blend,
        }
      : null,
  };
}

/** The named layer, which must be able to carry (visible) layer effects. */
function styleable(ctx: ToolContext, state: DocState, name: string, what: string): Layer {
  const layer = layerNamed(ctx, state, name);
  refuseBackground(layer, what);
  if (layer.kind === 'fill') {
    fail('unsupported', `“${layer.name}”是纯色填充图层，本编辑器暂不支持为它${what}（效果不会被绘制）`, {
      hint: `先用 rasterize_layer 把“${layer.name}”转换为像素图层`,
      details: { type: 'fill' },
    });
  }
  // Photoshop offers no layer style on an adjustment layer.
  if (layer.kind === 'adjustment') {
    fail('invalid_state', `“${layer.name}”是调整图层，不能${what}（Photoshop 的调整图层没有图层样式）`, {
      hint: '为调整图层下方的像素图层添加效果',
      details: { type: 'adjustment' },
    });
  }
  assertFree(state, layer, what);
  return layer;
}

function sameStroke(a: StrokeEffect | undefined, b: StrokeEffect): boolean {
  return (
    !!a &&
    a.size === b.size &&
    a.position === b.position &&
    a.opacity === b.opacity &&
    a.blend === b.blend &&
    rgbToHex(a.color) === rgbToHex(b.color)
  );
}

function sameShadow(a: DropShadowEffect | undefined, b: DropShadowEffect): boolean {
  return (
    !!a &&
    a.distance === b.distance &&
    a.angle === b.angle &&
    a.size === b.size &&
    a.spread === b.spread &&
    a.opacity === b.opacity &&
    a.blend === b.blend &&
    rgbToHex(a.color) === rgbToHex(b.color)
  );
}

/** An angle in Photoshop's range (−180, 180]: 300 → −60, −270 → 90. */
export function photoshopAngle(deg: number): number {
  let a = deg % 360;
  if (a > 180) a -= 360;
  if (a <= -180) a += 360;
  return a + 0;
}

function withEffects(layer: Layer, effects: Effects | undefined): Layer {
  const { effects: _old, ...rest } = layer;
  return (effects && effectNames(effects).length > 0 ? { ...rest, effects } : rest) as Layer;
}

function changedResult(state: DocState, layer: Layer, extra: Payload): Payload {
  const l = layerById(state, layer.id);
  return { ...extra, effects: effectsReport(l.effects), layer: layerSummary(state, l) };
}

export const effectsHandlers = {
  async add_stroke({ name, size, color, position }, ctx) {
    const doc = activeDoc(ctx);
    const layer = styleable(ctx, doc.state, name, '添加描边');
    const held = await heldColorFields(doc.state, color);
    const stroke: StrokeEffect = { size, position, color: held.color, opacity: 1, blend: 'normal' };
    const old = layer.effects?.stroke;
    if (sameStroke(old, stroke)) {
      return unchanged(ctx, doc, layer, `图层“${layer.name}”已有相同的描边`, {
        ...held.note,
        effects: effectsReport(layer.effects),
      });
    }
    const next = commitActive(
      ctx,
      doc,
      setLayer(doc.state, withEffects(layer, { ...layer.effects, stroke })),
      layer.id,
    );
    return changedResult(next, layer, {
      ...(old ? { replaced: 'stroke', note: '已替换图层原有的描边参数' } : {}),
      summary: `${POSITION_NAMES[position]}描边 ${size} 像素，颜色 ${rgbToHex(held.color)}`,
      ...held.note,
    });
  },

  async add_drop_shadow({ name, distance, size, opacity, angle }, ctx) {
    const doc = activeDoc(ctx);
    const layer = styleable(ctx, doc.state, name, '添加投影');
    const held = await heldColorFields(doc.state, rgbToHex(BLACK));
    const a = photoshopAngle(angle);
    const dropShadow: DropShadowEffect = {
      distance,
      angle: a,
      size,
      spread: 0,
      opacity: opacity / 100,
      color: held.color,
      blend: 'multiply',
    };
    const old = layer.effects?.dropShadow;
    if (sameShadow(old, dropShadow)) {
      return unchanged(ctx, doc, layer, `图层“${layer.name}”已有相同的投影`, {
        effects: effectsReport(layer.effects),
      });
    }
    const next = commitActive(
      ctx,
      doc,
      setLayer(doc.state, withEffects(layer, { ...layer.effects, dropShadow })),
      layer.id,
    );
    // Photoshop's angle is the light's direction: the shadow falls the opposite way (y down).
    const rad = (a * Math.PI) / 180;
    const dx = Math.round(-distance * Math.cos(rad) * 100) / 100 + 0;
    const dy = Math.round(distance * Math.sin(rad) * 100) / 100 + 0;
    return changedResult(next, layer, {
      ...(old ? { replaced: 'drop_shadow', note: '已替换图层原有的投影参数' } : {}),
      ...(a !== angle ? { angle_note: `角度 ${angle}° 已换算为 ${a}°（Photoshop 的范围 -180 到 180）` } : {}),
      shadow_offset: { dx, dy },
    });
  },

  clear_layer_effects({ name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    // Any kind may carry effects read from a PSD (a group's, say), so any kind may have them cleared.
    assertFree(doc.state, layer, '清除图层样式');
    const e = layer.effects;
    const removed = e ? effectNames(e) : [];
    if (removed.length === 0) {
      return unchanged(ctx, doc, layer, `图层“${layer.name}”没有图层样式，无需清除`, {
        removed: [],
      });
    }
    const next = commitActive(ctx, doc, setLayer(doc.state, withEffects(layer, undefined)), layer.id);
    return changedResult(next, layer, { removed });
  },
} satisfies ToolHandlers;
