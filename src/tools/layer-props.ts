/**
 * Group C: layer transforms and properties (SPEC.md §4.3), and group E's `select_layers`.
 *
 * Photoshop is the reference where the spec is silent: the background is position-locked (no move, transform,
 * opacity or blend change, no restacking); Lock All refuses moving, transforms, opacity, blend, rasterizing and
 * converting but allows showing/hiding and restacking; a layer inside a locked group is locked too.
 * Metadata changes copy no pixel buffer; transforms resample only the layer's own rectangle.
 */

import { undrawnReason } from '../engine/adjust/layer.js';
import { contentBounds } from '../engine/bounds.js';
import { contentExtent, effectPaints, effectsExtent, renderDocument } from '../engine/composite/index.js';
import { MAX_LAYER_REACH, reachOf } from '../engine/document-limits.js';
import type { OpenDocument } from '../engine/editor.js';
import { fail } from '../engine/errors.js';
import { isBackground, NO_LOCKS } from '../engine/factory.js';
import type {
  AdjustmentLayer,
  ColorMode,
  DocState,
  FillLayer,
  GroupLayer,
  Layer,
  LayerMask,
  PixelLayer,
  Raster,
  Rect,
  SmartLayer,
  TextMatrix,
} from '../engine/model.js';
import { alphaBounds, emptyRaster, isEmptyRect, rgbToHex, solidRaster, unionRect } from '../engine/raster.js';
import { flipSmart, renderSmart, rotateSmart, scaleSmart, smartFromRaster } from '../engine/smart.js';
import {
  isUniformScale,
  renderTextSpec,
  rotationMatrix,
  scaleTextSpec,
  transformTextSpec,
} from '../engine/text.js';
import {
  assertTransformSize,
  equivalentAngle,
  type FlipAxis,
  flipMask,
  flipRaster,
  normaliseAngle,
  type Point,
  rotateMask,
  rotateRaster,
  scaleMask,
  scaleRaster,
} from '../engine/transform.js';
import { translateLayer } from '../engine/translate.js';
import {
  childrenOf,
  isAncestor,
  layerById,
  layerRef,
  moveLayer,
  parentOf,
  removeLayer,
  setActive,
  setLayer,
  subtree,
  topDown,
} from '../engine/tree.js';
import type { ArgsOf } from '../registry/index.js';
import {
  boundsReport,
  fromSpecBlend,
  KIND_NAMES,
  layerSummary,
  textSummary,
  toSpecBlend,
} from './describe.js';
import { fileEffectsReport } from './effects.js';
import { layersNamedAll } from './grouping.js';
import {
  assertFree,
  assertPixelsUnlocked,
  assertPositionUnlocked,
  assertRecordable,
  refuseAdjustment,
  refuseBackground,
} from './guards.js';
import { activateOnly, activeDoc, activeLayer, layerNamed, selectedLayers } from './resolve.js';
import type { Payload, ToolContext, ToolHandlers } from './types.js';

// ---------------------------------------------------------------------------------------------------------
// Small shared pieces

function percent(v: number): number {
  return Math.round(v * 1000) / 10;
}

/** Whole pixels, without negative zero. */
function whole(v: number): number {
  return Math.round(v) + 0;
}

/** Commits `next` with `id` as the active layer: the call's single update. */
function commit(ctx: ToolContext, doc: OpenDocument, next: DocState, id: number): DocState {
  const state = setActive(next, id);
  ctx.tx.update(doc.id, state);
  return state;
}

function summary(state: DocState, id: number) {
  return layerSummary(state, layerById(state, id));
}

function unchangedResult(state: DocState, id: number, note: string, extra: Payload = {}): Payload {
  return { changed: false, note, ...extra, layer: summary(state, id) };
}

/** Moving or transforming: the layer and everything in it must be unlocked (position too) and not the background. */
function assertPositionable(state: DocState, layer: Layer, what: string, pixelsToo: boolean): void {
  assertFree(state, layer, what);
  for (const id of subtree(state, layer.id)) {
    const l = layerById(state, id);
    refuseBackground(l, what);
    assertPositionUnlocked(l, what);
    if (pixelsToo && l.kind !== 'group') assertPixelsUnlocked(l, what);
  }
}

/** A canvas-sized colour layer that is not the background (a background copy) becomes the pixels it shows. */
function materialised(state: DocState, layer: FillLayer): PixelLayer {
  const { kind: _kind, color, background: _background, ...base } = layer;
  return {
    ...base,
    kind: 'pixel',
    raster: solidRaster({ x: 0, y: 0, w: state.width, h: state.height }, color),
  };
}

/** Whole-pixel offsets of a move, with the note a result carries when they were rounded. */
function wholeOffsets(dx: number, dy: number) {
  const mx = whole(dx);
  const my = whole(dy);
  const rounded = mx !== dx || my !== dy ? { note: `位移已取整为整像素：dx=${mx}，dy=${my}` } : {};
  return { mx, my, rounded };
}

/**
 * Whether moving `layer` (content bounds `before`) by (mx, my) moves anything: false for an empty layer without
 * a mask. Refuses a move that would take it beyond the positions a PSD can record.
 */
function hasMovableContent(
  state: DocState,
  layer: Layer,
  before: Rect,
  { dx, dy, mx, my }: { dx: number; dy: number; mx: number; my: number },
): boolean {
  const reach = reachOf({ ...before, x: before.x + mx, y: before.y + my });
  if (!(reach <= MAX_LAYER_REACH)) {
    fail(
      'out_of_bounds',
      `位移 dx=${dx}，dy=${dy} 会把图层“${layer.name}”移到离画布约 ${reach.toExponential(1)} 像素处，超出文件能记录的位置`,
      {
        hint: `图层位置须在画布原点 ±${MAX_LAYER_REACH} 像素之内（PSD 以 32 位整数记录位置）`,
      },
    );
  }
  const hasMask = subtree(state, layer.id).some((id) => layerById(state, id).mask);
  return !(isEmptyRect(before) && !hasMask);
}

function materialiseFills(state: DocState, id: number): DocState {
  let next = state;
  for (const c of subtree(state, id)) {
    const l = layerById(state, c);
    if (l.kind === 'fill' && !l.background) next = setLayer(next, materialised(state, l));
  }
  return next;
}

// ---------------------------------------------------------------------------------------------------------
// Transforms (resize, rotate, flip)

type Op =
  | { readonly kind: 'scale'; readonly kx: number; readonly ky: number }
  | { readonly kind: 'rotate'; readonly deg: number }
  | { readonly kind: 'flip'; readonly axis: FlipAxis };

const OP_VERBS: Record<Op['kind'], string> = { scale: '缩放', rotate: '旋转', flip: '翻转' };

/** A scale by 100 % or a turn by a whole number of turns: nothing changes. */
function isIdentity(op: Op): boolean {
  return (
    (op.kind === 'scale' && op.kx === 1 && op.ky === 1) ||
    (op.kind === 'rotate' && normaliseAngle(op.deg) === 0)
  );
}

/**
 * The named layers split into those to act on and those inside a listed group, which go with the group: acting on
 * them on their own too would move or transform them twice.
 */
function withoutListedChildren(state: DocState, named: readonly Layer[]) {
  const inGroup = named.filter((l) => named.some((g) => g !== l && isAncestor(state, g.id, l.id)));
  return { roots: named.filter((l) => !inGroup.includes(l)), inGroup };
}

function transformPixels(r: Raster, op: Op, pivot: Point): Promise<Raster> | Raster {
  switch (op.kind) {
    case 'scale':
      return scaleRaster(r, op.kx, op.ky, pivot);
    case 'rotate':
      return rotateRaster(r, op.deg, pivot);
    case 'flip':
      return flipRaster(r, op.axis, pivot);
  }
}

function transformMask(m: LayerMask, op: Op, pivot: Point): Promise<LayerMask> | LayerMask {
  switch (op.kind) {
    case 'scale':
      return scaleMask(m, op.kx, op.ky, pivot);
    case 'rotate':
      return rotateMask(m, op.deg, pivot);
    case 'flip':
      return flipMask(m, op.axis, pivot);
  }
}

async function transformSmart(layer: SmartLayer, op: Op, pivot: Point, notes: Set<string>) {
  let transform = layer.transform;
  switch (op.kind) {
    case 'scale': {
      const scaled = scaleSmart(transform, op.kx, op.ky, pivot);
      transform = scaled.transform;
      if (scaled.alongObjectAxes) {
        notes.add(`智能对象“${layer.name}”已旋转，非等比缩放沿其自身方向应用（不产生斜切）`);
      }
      break;
    }
    case 'rotate':
      transform = rotateSmart(transform, op.deg, pivot);
      break;
    case 'flip':
      transform = flipSmart(transform, op.axis, pivot);
      break;
  }
  return { transform, raster: await renderSmart(layer.source, transform) };
}

/** Applies `op` about `pivot` to a layer and, for a group, to everything inside it; masks go along. */
async function transformTree(
  state: DocState,
  id: number,
  op: Op,
  pivot: Point,
  notes: Set<string>,
): Promise<DocState> {
  const layer = layerById(state, id);
  const mask = layer.mask ? { mask: await transformMask(layer.mask, op, pivot) } : {};
  switch (layer.kind) {
    case 'pixel':
      return setLayer(state, { ...layer, ...mask, raster: await transformPixels(layer.raster, op, pivot) });
    case 'smart':
      return setLayer(state, { ...layer, ...mask, ...(await transformSmart(layer, op, pivot, notes)) });
    case 'group': {
      let next = setLayer(state, { ...layer, ...mask });
      for (const c of layer.children) next = await transformTree(next, c, op, pivot, notes);
      return next;
    }
    case 'adjustment':
      // It has no pixels: its mask is what moves, as in Photoshop.
      return setLayer(state, { ...layer, ...mask });
    case 'text': {
      // Text stays editable: a uniform scale changes the font size, anything else goes into its transform.
      const spec =
        op.kind === 'scale' && isUniformScale(op.kx, op.ky)
          ? scaleTextSpec(layer.text, op.kx, op.ky, pivot)
          : transformTextSpec(layer.text, textMatrixOf(op), pivot);
      const { text, raster } = renderTextSpec(spec);
      return setLayer(state, { ...layer, ...mask, text, raster });
    }
    case 'fill':
      // Materialised before any work starts.
      return fail('internal', `不能变换${KIND_NAMES[layer.kind]}图层“${layer.name}”`);
  }
}

/** The linear map of `op`, for a text layer's transform. */
function textMatrixOf(op: Op): TextMatrix {
  switch (op.kind) {
    case 'scale':
      return [op.kx, 0, 0, op.ky];
    case 'rotate':
      return rotationMatrix(op.deg);
    case 'flip':
      return op.axis === 'horizontal' ? [-1, 0, 0, 1] : [1, 0, 0, -1];
  }
}

/** The centre a layer is transformed about: a smart object's placement centre, otherwise its content's. */
function pivotOf(state: DocState, layer: Layer): Point | null {
  if (layer.kind === 'smart') return { x: layer.transform.cx, y: layer.transform.cy };
  const b = contentBounds(state, layer.id);
  return isEmptyRect(b) ? null : { x: b.x + b.w / 2, y: b.y + b.h / 2 };
}

function smartReport(state: DocState, id: number) {
  const l = layerById(state, id);
  if (l.kind !== 'smart') return {};
  const t = l.transform;
  return {
    smart_object: {
      scale_x: percent(t.scaleX),
      scale_y: percent(t.scaleY),
      angle: t.angle,
      center_x: t.cx,
      center_y: t.cy,
    },
  };
}

type Anchor = NonNullable<ArgsOf<'scale_layer_from'>['anchor']>;

/** Where each reference point lies on a box, as fractions of its width and height. */
const ANCHORS: Record<Anchor, readonly [number, number]> = {
  top_left: [0, 0],
  top: [0.5, 0],
  top_right: [1, 0],
  left: [0, 0.5],
  center: [0.5, 0.5],
  right: [1, 0.5],
  bottom_left: [0, 1],
  bottom: [0.5, 1],
  bottom_right: [1, 1],
};

/** The fixed point of a transform: the layer's own centre, or a reference point on its content's bounds. */
function anchorPoint(state: DocState, layer: Layer, anchor: Anchor): Point | null {
  if (anchor === 'center') return pivotOf(state, layer);
  const b = contentBounds(state, layer.id);
  if (isEmptyRect(b)) return null;
  const [fx, fy] = ANCHORS[anchor];
  return { x: b.x + b.w * fx, y: b.y + b.h * fy };
}

async function transformNamed(
  ctx: ToolContext,
  name: string,
  op: Op,
  extra: Payload,
  anchor: Anchor = 'center',
): Promise<Payload> {
  const doc = activeDoc(ctx);
  const layer = layerNamed(ctx, doc.state, name);
  const what = OP_VERBS[op.kind];
  assertPositionable(doc.state, layer, what, true);

  const identity = isIdentity(op);
  if (identity) {
    const s = activateOnly(ctx, doc, layer.id);
    return unchangedResult(
      s,
      layer.id,
      op.kind === 'scale' ? '缩放比例为 100%，图层未改变' : '旋转角度为 0，图层未改变',
      extra,
    );
  }
  const pivot = anchorPoint(doc.state, layer, anchor);
  if (!pivot) {
    const s = activateOnly(ctx, doc, layer.id);
    return unchangedResult(s, layer.id, `图层“${layer.name}”为空，没有可${what}的内容`, extra);
  }

  const before = contentBounds(doc.state, layer.id);
  const notes = new Set<string>();
  const transformed = await transformTree(materialiseFills(doc.state, layer.id), layer.id, op, pivot, notes);
  assertRecordable(transformed, subtree(transformed, layer.id), what);
  const next = commit(ctx, doc, transformed, layer.id);
  return {
    ...extra,
    layer: summary(next, layer.id),
    bounds_before: boundsReport(before),
    ...smartReport(next, layer.id),
    ...(notes.size ? { notes: [...notes] } : {}),
  };
}

/**
 * A group's contents flattened, for a smart object made from it: the children composite as an isolated
 * group at full opacity and fill, unmasked and without effects; the group's own opacity, fill, blend mode,
 * mask and effects stay on the smart object layer (as Photoshop keeps a converted layer's properties outside
 * the object).
 */
function flattenGroup(state: DocState, group: GroupLayer): Raster {
  const { mask: _mask, effects: _effects, fillOpacity: _fill, ...rest } = group;
  const inner: GroupLayer = { ...rest, visible: true, opacity: 1, blend: 'normal', clipped: false };
  const alone: DocState = { ...setLayer(state, inner), root: [group.id] };
  const rect = contentExtent(alone, inner);
  if (isEmptyRect(rect)) return emptyRaster();
  assertTransformSize(rect.w, rect.h);
  return renderDocument(alone, rect);
}

// ---------------------------------------------------------------------------------------------------------
// Layer details for get_active_layer_info

function layerDetails(state: DocState, layer: Layer): Payload {
  const common: Record<string, unknown> = {
    locks: { ...layer.locks },
    clipped: layer.clipped,
    mask: layer.mask
      ? {
          enabled: layer.mask.enabled,
          outside: layer.mask.outside === 255 ? 'reveal' : 'hide',
          bounds: boundsReport(layer.mask),
        }
      : null,
    effects: {
      stroke: layer.effects?.stroke
        ? {
            size: layer.effects.stroke.size,
            position: layer.effects.stroke.position,
            color: rgbToHex(layer.effects.stroke.color),
            opacity: percent(layer.effects.stroke.opacity),
          }
        : null,
      drop_shadow: layer.effects?.dropShadow
        ? {
            distance: layer.effects.dropShadow.distance,
            size: layer.effects.dropShadow.size,
            angle: layer.effects.dropShadow.angle,
            color: rgbToHex(layer.effects.dropShadow.color),
            opacity: percent(layer.effects.dropShadow.opacity),
          }
        : null,
      ...fileEffectsReport(layer.effects),
    },
  };
  switch (layer.kind) {
    case 'pixel':
      return { ...common, empty: isEmptyRect(layer.raster) };
    case 'fill':
      return { ...common, color: rgbToHex(layer.color) };
    case 'text':
      return {
        ...common,
        text: textSummary(layer.text),
      };
    case 'smart':
      return {
        ...common,
        smart_object: {
          source_width: layer.source.w,
          source_height: layer.source.h,
          scale_x: percent(layer.transform.scaleX),
          scale_y: percent(layer.transform.scaleY),
          angle: layer.transform.angle,
          center_x: layer.transform.cx,
          center_y: layer.transform.cy,
        },
      };
    case 'adjustment':
      return {
        ...common,
        adjustment: adjustmentSummary(layer.adjustment, state.mode),
      };
    case 'group':
      return {
        ...common,
        open: layer.open,
        child_count: layer.children.length,
        children: [...layer.children].reverse().map((c) => {
          const child = layerById(state, c);
          return { name: child.name, type: KIND_NAMES[child.kind] };
        }),
      };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Handlers

/**
 * The layer's pixels and what its effects paint around them, measured on the effects' own pictures (the compositor
 * draws the same ones); a group's effects are bounded by their reach instead (measuring them would render the group).
 */
function paintedBounds(layer: Layer, content: Rect, canvas: Pick<DocState, 'width' | 'height'>): Rect {
  const reach = effectsExtent(layer, content);
  if (reach === content || layer.kind === 'group') return reach;
  const { below, above } = effectPaints(layer, canvas);
  return [...below, ...above].reduce((r, p) => unionRect(r, alphaBounds(p.raster)), content);
}

export const layerPropsHandlers = {
  move_layer({ name, dx, dy }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    assertPositionable(doc.state, layer, '移动', false);
    const { mx, my, rounded } = wholeOffsets(dx, dy);
    if (mx === 0 && my === 0) {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, '位移为 0 像素，图层未移动', { moved: { dx: 0, dy: 0 } });
    }
    const before = contentBounds(doc.state, layer.id);
    if (!hasMovableContent(doc.state, layer, before, { dx, dy, mx, my })) {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, `图层“${layer.name}”为空，没有可移动的内容`, {
        moved: { dx: 0, dy: 0 },
      });
    }
    const next = commit(
      ctx,
      doc,
      translateLayer(materialiseFills(doc.state, layer.id), layer.id, mx, my),
      layer.id,
    );
    return {
      moved: { dx: mx, dy: my },
      ...rounded,
      layer: summary(next, layer.id),
      bounds_before: boundsReport(before),
    };
  },

  move_layers({ layer_names, dx, dy }, ctx) {
    const doc = activeDoc(ctx);
    const named = layersNamedAll(ctx, doc.state, layer_names);
    const { roots, inGroup } = withoutListedChildren(doc.state, named);
    for (const layer of roots) assertPositionable(doc.state, layer, '移动', false);
    const { mx, my, rounded } = wholeOffsets(dx, dy);
    const withGroup = inGroup.length
      ? { moved_with_group: inGroup.map((l) => layerRef(doc.state, l.id)) }
      : {};
    const empty: Layer[] = [];
    let next = doc.state;
    if (mx !== 0 || my !== 0) {
      for (const layer of roots) {
        if (!hasMovableContent(doc.state, layer, contentBounds(doc.state, layer.id), { dx, dy, mx, my })) {
          empty.push(layer);
          continue;
        }
        next = translateLayer(materialiseFills(next, layer.id), layer.id, mx, my);
      }
    }
    // The named layers become the selection, as after a move of several selected layers in Photoshop.
    const selection = { active: named[0]!.id, selected: named.map((l) => l.id) };
    const reselected = { ...next, ...selection };
    const skipped = empty.length ? { empty: empty.map((l) => layerRef(doc.state, l.id)) } : {};
    ctx.tx.update(doc.id, reselected);
    if (next === doc.state) {
      // Only the selection changed, which is no history step (as select_layers).
      ctx.tx.skipHistoryStep();
      return {
        changed: false,
        note: mx === 0 && my === 0 ? '位移为 0 像素，图层未移动' : '这些图层都为空，没有可移动的内容',
        moved: { dx: 0, dy: 0 },
        ...skipped,
        layers: named.map((l) => summary(reselected, l.id)),
      };
    }
    return {
      moved: { dx: mx, dy: my },
      ...rounded,
      ...withGroup,
      ...skipped,
      layers: roots.filter((l) => !empty.includes(l)).map((l) => summary(reselected, l.id)),
    };
  },

  resize_layer({ name, scale_x, scale_y }, ctx) {
    const sy = scale_y ?? scale_x;
    return transformNamed(
      ctx,
      name,
      { kind: 'scale', kx: scale_x / 100, ky: sy / 100 },
      { scale: { x: scale_x, y: sy } },
    );
  },

  scale_layer_from({ name, scale_x, scale_y, anchor }, ctx) {
    const sy = scale_y ?? scale_x;
    return transformNamed(
      ctx,
      name,
      { kind: 'scale', kx: scale_x / 100, ky: sy / 100 },
      { scale: { x: scale_x, y: sy }, anchor },
      anchor,
    );
  },

  async transform_layers({ layer_names, scale_x, scale_y, angle, anchor }, ctx) {
    const doc = activeDoc(ctx);
    const scaling = scale_x !== undefined || scale_y !== undefined;
    if (scaling === (angle !== undefined) || (scaling && scale_x === undefined)) {
      fail(
        'invalid_arguments',
        '一次调用只做缩放或旋转之一：请给出 scale_x（缩放）或 angle（旋转），不要同时给出或都不给',
        {
          hint: '先缩放再旋转时分两次调用 transform_layers',
          details: [{ parameter: scale_x === undefined ? 'scale_x' : 'angle' }],
        },
      );
    }
    const op: Op =
      scale_x !== undefined
        ? { kind: 'scale', kx: scale_x / 100, ky: (scale_y ?? scale_x) / 100 }
        : { kind: 'rotate', deg: equivalentAngle(angle!) };
    const what = OP_VERBS[op.kind];
    const named = layersNamedAll(ctx, doc.state, layer_names);
    const { roots, inGroup } = withoutListedChildren(doc.state, named);
    for (const layer of roots) assertPositionable(doc.state, layer, what, true);
    const extra = {
      ...(op.kind === 'scale' ? { scale: { x: scale_x, y: scale_y ?? scale_x } } : { angle }),
      anchor,
      ...(inGroup.length ? { transformed_with_group: inGroup.map((l) => layerRef(doc.state, l.id)) } : {}),
    };
    const selection = { active: named[0]!.id, selected: named.map((l) => l.id) };
    const before = roots.map((l) => contentBounds(doc.state, l.id)).reduce(unionRect);
    const identity = isIdentity(op);
    if (identity || isEmptyRect(before)) {
      // Only the selection changes, which is no history step (as select_layers).
      const reselected = { ...doc.state, ...selection };
      ctx.tx.update(doc.id, reselected);
      ctx.tx.skipHistoryStep();
      const note = identity
        ? op.kind === 'scale'
          ? '缩放比例为 100%，图层未改变'
          : '旋转角度为 0，图层未改变'
        : `这些图层都为空，没有可${what}的内容`;
      return { changed: false, note, ...extra, layers: named.map((l) => summary(reselected, l.id)) };
    }
    // The one reference point of the layers' joint bounds, as Photoshop's Free Transform of several layers.
    const [fx, fy] = ANCHORS[anchor];
    const pivot = { x: before.x + before.w * fx, y: before.y + before.h * fy };
    const notes = new Set<string>();
    let next = doc.state;
    for (const layer of roots) {
      next = await transformTree(materialiseFills(next, layer.id), layer.id, op, pivot, notes);
      assertRecordable(next, subtree(next, layer.id), what);
    }
    const reselected = { ...next, ...selection };
    ctx.tx.update(doc.id, reselected);
    return {
      ...extra,
      bounds_before: boundsReport(before),
      bounds_after: boundsReport(roots.map((l) => contentBounds(reselected, l.id)).reduce(unionRect)),
      layers: roots.map((l) => summary(reselected, l.id)),
      ...(notes.size ? { notes: [...notes] } : {}),
    };
  },

  rotate_layer({ name, angle }, ctx) {
    // Any finite angle is a turn in (−180°, 180°]: 1e308° must not reach the trigonometry as it is.
    return transformNamed(ctx, name, { kind: 'rotate', deg: equivalentAngle(angle) }, { angle });
  },

  flip_layer({ name, direction }, ctx) {
    return transformNamed(ctx, name, { kind: 'flip', axis: direction }, { direction });
  },

  set_layer_opacity({ name, opacity }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    refuseBackground(layer, '更改不透明度');
    assertFree(doc.state, layer, '更改不透明度');
    const value = opacity / 100;
    const old = percent(layer.opacity);
    if (layer.opacity === value) {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, `不透明度已经是 ${old}%`, { old_opacity: old });
    }
    const next = commit(ctx, doc, setLayer(doc.state, { ...layer, opacity: value }), layer.id);
    return { old_opacity: old, layer: summary(next, layer.id) };
  },

  set_layer_fill_opacity({ name, fill_opacity }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    // Photoshop greys out Fill for a group: what it fades is a layer's own pixels, which a group has none of.
    if (layer.kind === 'group') {
      fail('invalid_state', `“${layer.name}”是图层组，图层组没有填充不透明度`, {
        hint: '用 set_layer_opacity 设置图层组的不透明度，或对组内的图层设置填充不透明度',
      });
    }
    refuseBackground(layer, '更改填充不透明度');
    assertFree(doc.state, layer, '更改填充不透明度');
    const value = fill_opacity / 100;
    const current = layer.fillOpacity ?? 1;
    const old = percent(current);
    if (current === value) {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, `填充不透明度已经是 ${old}%`, { old_fill_opacity: old });
    }
    const { fillOpacity: _fill, ...rest } = layer;
    const next = commit(
      ctx,
      doc,
      setLayer(doc.state, value === 1 ? rest : { ...rest, fillOpacity: value }),
      layer.id,
    );
    return { old_fill_opacity: old, layer: summary(next, layer.id) };
  },

  set_layer_blend_mode({ name, mode }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    refuseBackground(layer, '更改混合模式');
    assertFree(doc.state, layer, '更改混合模式');
    const blend = fromSpecBlend(mode);
    const old = toSpecBlend(layer.blend);
    if (layer.blend === blend) {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, `混合模式已经是 ${mode}`, { old_mode: old });
    }
    const next = commit(ctx, doc, setLayer(doc.state, { ...layer, blend }), layer.id);
    return { old_mode: old, layer: summary(next, layer.id) };
  },

  set_layer_visible({ name, visible }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    if (layer.visible === visible) {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, visible ? '图层已经是显示状态' : '图层已经是隐藏状态', {
        old_visible: visible,
      });
    }
    const next = commit(ctx, doc, setLayer(doc.state, { ...layer, visible }), layer.id);
    const reason = layer.kind === 'adjustment' ? undrawnReason(layer.adjustment, next.mode) : undefined;
    if (reason) {
      ctx.warn(
        `调整图层“${layer.name}”已${visible ? '显示' : '隐藏'}，但预览和导出的图像不变：${reason}（保存的 PSD 在 Photoshop 中${visible ? '会' : '不会'}应用它）`,
      );
    }
    return { old_visible: layer.visible, layer: summary(next, layer.id) };
  },

  lock_layer({ name, locked }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    const l = layer.locks;
    const already = locked ? l.all : !l.all && !l.pixels && !l.position && !l.transparency;
    if (already) {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, locked ? '图层已经锁定' : '图层没有锁定', { old_locked: l.all });
    }
    const locks = locked ? { ...l, all: true } : NO_LOCKS;
    const next = commit(ctx, doc, setLayer(doc.state, { ...layer, locks }), layer.id);
    return { old_locked: l.all, layer: summary(next, layer.id) };
  },

  bring_to_front({ name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    refuseBackground(layer, '调整图层顺序');
    const parent = parentOf(doc.state, layer.id);
    const siblings = childrenOf(doc.state, parent);
    if (siblings.at(-1) === layer.id) {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, parent === null ? '图层已在最上方' : '图层已在所在图层组的最上方');
    }
    const next = commit(ctx, doc, moveLayer(doc.state, layer.id, parent, siblings.length - 1), layer.id);
    return {
      position: 'top',
      ...(parent !== null ? { within_group: layerById(next, parent).name } : {}),
      layer: summary(next, layer.id),
    };
  },

  send_to_back({ name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    refuseBackground(layer, '调整图层顺序');
    const parent = parentOf(doc.state, layer.id);
    const siblings = childrenOf(doc.state, parent);
    const bottom = siblings[0] !== undefined && isBackground(layerById(doc.state, siblings[0])) ? 1 : 0;
    const note = bottom ? { note: '背景图层始终在最底层，图层已移到背景图层之上' } : {};
    if (siblings.indexOf(layer.id) === bottom) {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, bottom ? '图层已在背景图层之上的最底部' : '图层已在最底部');
    }
    const next = commit(ctx, doc, moveLayer(doc.state, layer.id, parent, bottom), layer.id);
    return {
      position: 'bottom',
      ...note,
      ...(parent !== null ? { within_group: layerById(next, parent).name } : {}),
      layer: summary(next, layer.id),
    };
  },

  rasterize_layer({ name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    if (layer.kind === 'group') {
      fail('invalid_state', `“${layer.name}”是图层组，不能栅格化`, {
        hint: '用 select_layers 选中组内图层后调用 merge_layers 合并',
      });
    }
    if (layer.kind === 'pixel') {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, `“${layer.name}”已经是像素图层，无需栅格化`, { from: 'pixel' });
    }
    refuseAdjustment(layer, '栅格化');
    assertFree(doc.state, layer, '栅格化');
    let pixel: PixelLayer;
    switch (layer.kind) {
      case 'fill': {
        pixel = materialised(doc.state, layer);
        if (layer.background) pixel = { ...pixel, background: true };
        break;
      }
      case 'text': {
        const { kind: _k, text: _t, psdText: _p, ...base } = layer;
        pixel = { ...base, kind: 'pixel' };
        break;
      }
      case 'smart': {
        const { kind: _k, source: _s, transform: _t, ...base } = layer;
        pixel = { ...base, kind: 'pixel' };
        break;
      }
    }
    const next = commit(ctx, doc, setLayer(doc.state, pixel), layer.id);
    return { from: KIND_NAMES[layer.kind], layer: summary(next, layer.id) };
  },

  convert_to_smart_object({ name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    if (layer.kind === 'smart') {
      const s = activateOnly(ctx, doc, layer.id);
      return unchangedResult(s, layer.id, `“${layer.name}”已经是智能对象`, { from: 'smart_object' });
    }
    refuseAdjustment(layer, '转换为智能对象');
    assertFree(doc.state, layer, '转换为智能对象');
    let state = doc.state;
    let pixels: Raster;
    if (layer.kind === 'group') {
      pixels = flattenGroup(state, layer);
      for (const c of layer.children) state = removeLayer(state, c);
    } else {
      pixels = layer.kind === 'fill' ? materialised(state, layer).raster : layer.raster;
    }
    const { source, transform } = smartFromRaster(pixels);
    if (isEmptyRect(source)) {
      const what = layer.kind === 'group' ? '图层组' : '图层';
      fail('invalid_state', `${what}“${layer.name}”为空（或内容全部隐藏），没有可转换的像素`, {
        hint: '先在图层上绘制或填充内容',
      });
    }
    const { id, name: n, visible, opacity, fillOpacity, clipped, locks, mask, effects } = layer;
    const smart: SmartLayer = {
      id,
      name: n,
      visible,
      opacity,
      ...(fillOpacity !== undefined ? { fillOpacity } : {}),
      blend: layer.blend === 'pass through' ? 'normal' : layer.blend,
      clipped,
      locks,
      ...(mask ? { mask } : {}),
      ...(effects ? { effects } : {}),
      kind: 'smart',
      source,
      transform,
      raster: source,
    };
    const next = commit(ctx, doc, setLayer(state, smart), layer.id);
    const notes = [
      ...(isBackground(layer) ? ['背景图层转换为智能对象后成为普通图层'] : []),
      ...(layer.kind === 'text' ? ['文字已作为像素嵌入智能对象，不能再用 set_text_* 修改'] : []),
      ...(layer.kind === 'group'
        ? [`图层组的 ${layer.children.length} 个子图层已合成为智能对象的内容，不再单独出现在图层列表中`]
        : []),
    ];
    return {
      from: KIND_NAMES[layer.kind],
      ...(notes.length ? { notes } : {}),
      layer: summary(next, layer.id),
      ...smartReport(next, layer.id),
    };
  },

  get_layer_bounds({ name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = layerNamed(ctx, doc.state, name);
    const state = activateOnly(ctx, doc, layer.id);
    const content = contentBounds(state, layer.id);
    // Photoshop's bounds include the layer's effects: a stroke or a shadow widens what aligning or spacing by
    // these numbers must leave room for. The layer's own pixels stay the main figure (moving goes by them).
    const painted = paintedBounds(layer, content, state);
    const widened =
      painted.x !== content.x ||
      painted.y !== content.y ||
      painted.w !== content.w ||
      painted.h !== content.h;
    return {
      name: layer.name,
      type: KIND_NAMES[layer.kind],
      ...boundsReport(content),
      ...(widened ? { with_effects: boundsReport(painted) } : {}),
    };
  },

  get_active_layer_info(_args, ctx) {
    const doc = activeDoc(ctx);
    const layer = activeLayer(doc.state);
    return { layer: { ...layerSummary(doc.state, layer), ...layerDetails(doc.state, layer) } };
  },

  list_all_layer_names(_args, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const layers = [...topDown(s)].map(({ layer, parent, depth }) => ({
      name: layer.name,
      type: KIND_NAMES[layer.kind],
      visible: layer.visible,
      depth,
      group: parent === null ? null : layerById(s, parent).name,
    }));
    const active = s.active !== null ? s.layers.get(s.active) : undefined;
    return { count: layers.length, active_layer: active?.name ?? null, layers };
  },

  select_layers({ names, add }, ctx) {
    const doc = activeDoc(ctx);
    if (names.length === 0) {
      fail('invalid_arguments', 'names 不能为空：至少给出一个图层名称', {
        hint: '用 list_all_layer_names 查看所有图层',
      });
    }
    // Resolve every name first: a missing one changes nothing.
    const picked = names.map((n) => layerNamed(ctx, doc.state, n));
    const ids: number[] = [];
    const base = add ? selectedLayers(doc.state).map((l) => l.id) : [];
    for (const id of [...base, ...picked.map((l) => l.id)]) if (!ids.includes(id)) ids.push(id);
    const next: DocState = { ...doc.state, active: picked[0]!.id, selected: ids };
    ctx.tx.update(doc.id, next);
    ctx.tx.skipHistoryStep();
    return {
      selected: ids.map((id) => layerById(next, id).name),
      count: ids.length,
      active_layer: picked[0]!.name,
    };
  },
} satisfies ToolHandlers;

/** An adjustment layer's kind, whether the picture shows it and, when not, why. */
function adjustmentSummary(adjustment: AdjustmentLayer['adjustment'], mode: ColorMode) {
  const reason = undrawnReason(adjustment, mode);
  return { type: adjustment.type, drawn: !reason, ...(reason ? { not_drawn: reason } : {}) };
}
