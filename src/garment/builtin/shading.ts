/**
 * What on a photographed garment is light, not print: fold and armhole shadows (the garment's own colour,
 * darker, fading in softly) and the inside of the back seen through the neck opening (its own colour, darker,
 * at the top centre). Print has crisp edges or a colour of its own; shading has neither, so a region differing
 * from the expected colour counts as shading only when it is a darkening of that colour and either fades in
 * (no crisp outline) or sits where the neck opening is.
 */
import type { Raster, Rect } from '../../engine/model.js';
import { deltaE76, type Lab } from '../color.js';
import type { Component, LabPlanes } from '../image.js';

/** ΔE76 across a region's outline (3 px apart) below which the outline is soft: the region fades in. */
const CRISP_DE = 10;
/** Share of a region's pixels that must be a darkening of the expected colour for it to be shading. */
const SHADOW_SHARE = 0.8;
/** The neck opening's top lies within this share of the garment height from the garment top. */
export const NECK_BAND = 0.12;

/**
 * Whether `rgb` is `expected` under less light: a multiple s·expected (0.3 ≤ s ≤ 1.08: sRGB's power law keeps a
 * product a product) within 12 % of its length.
 */
export function isDarkening(r: number, g: number, b: number, e: readonly [number, number, number]): boolean {
  const ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
  if (ee === 0) return false;
  const s = (r * e[0] + g * e[1] + b * e[2]) / ee;
  if (s < 0.3 || s > 1.08) return false;
  const res = Math.hypot(r - s * e[0], g - s * e[1], b - s * e[2]);
  return res <= 0.12 * Math.sqrt(ee) * s + 6;
}

export interface RegionContext {
  readonly photo: Raster;
  readonly lab: LabPlanes;
  readonly labels: Int32Array;
  /** The colour the print would have at (x, y) without this region (the ground, or the repeat). */
  readonly expected: (x: number, y: number) => readonly [number, number, number];
  /** Garment bounds. */
  readonly garment: Rect;
}

/** Median ΔE76 across the region's outline: inside one pixel in from the edge against two pixels out. */
function outlineContrast(c: Component, ctx: RegionContext): number {
  const { photo, lab, labels } = ctx;
  const w = photo.w;
  const h = photo.h;
  const at = (i: number): Lab => ({ L: lab.L[i]!, a: lab.a[i]!, b: lab.b[i]! });
  const values: number[] = [];
  const step = Math.max(1, Math.floor(Math.sqrt(c.area / 2000)));
  for (let y = c.y0; y <= c.y1; y += step) {
    for (let x = c.x0; x <= c.x1; x += step) {
      const i = y * w + x;
      if (labels[i] !== c.label) continue;
      for (const [dx, dy] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ] as const) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= w || ny >= h || labels[ny * w + nx] === c.label) continue;
        const ox = Math.min(w - 1, Math.max(0, x + 2 * dx));
        const oy = Math.min(h - 1, Math.max(0, y + 2 * dy));
        const ix = Math.min(w - 1, Math.max(0, x - dx));
        const iy = Math.min(h - 1, Math.max(0, y - dy));
        values.push(deltaE76(at(iy * w + ix), at(oy * w + ox)));
      }
    }
  }
  if (values.length === 0) return 0;
  values.sort((p, q) => p - q);
  return values[values.length >> 1]!;
}

function darkeningShare(c: Component, ctx: RegionContext): number {
  const { photo, labels } = ctx;
  let dark = 0;
  let n = 0;
  const step = Math.max(1, Math.floor(Math.sqrt(c.area / 4000)));
  for (let y = c.y0; y <= c.y1; y += step) {
    for (let x = c.x0; x <= c.x1; x += step) {
      const i = y * photo.w + x;
      if (labels[i] !== c.label) continue;
      n++;
      const o = i * 4;
      if (isDarkening(photo.data[o]!, photo.data[o + 1]!, photo.data[o + 2]!, ctx.expected(x, y))) dark++;
    }
  }
  return n ? dark / n : 0;
}

/** Where a region sits that the neck opening would: its top near the garment top, on the centre axis. */
export function atNeck(c: { x0: number; y0: number; x1: number }, g: Rect): boolean {
  const cx = (c.x0 + c.x1) / 2;
  return c.y0 <= g.y + NECK_BAND * g.h && Math.abs(cx - (g.x + g.w / 2)) <= 0.15 * g.w;
}

export type ShadingKind = 'fold_shadow' | 'neck_opening';

/** Why a region differing from the expected colour is light rather than print, or null when it is print. */
export function shadingKind(c: Component, ctx: RegionContext): ShadingKind | null {
  if (darkeningShare(c, ctx) < SHADOW_SHARE) return null;
  if (atNeck(c, ctx.garment)) return 'neck_opening';
  return outlineContrast(c, ctx) < CRISP_DE ? 'fold_shadow' : null;
}
