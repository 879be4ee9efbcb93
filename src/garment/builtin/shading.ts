/**
 * What on a photographed garment is light, not print: fold and armhole shadows (the garment's own colour,
 * darker, fading in softly) and the inside of the back seen through the neck opening (its own colour, darker,
 * at the top centre). Print has crisp edges or a colour of its own; shading has neither, so a region differing
 * from the expected colour counts as shading only when it is a darkening of that colour and either fades in
 * (no crisp outline) or sits where the neck opening is.
 */
import type { Raster, Rect } from '../../engine/model.js';
import { deltaE76, type Lab } from '../color.js';
import { type Component, kthSmallest, type LabPlanes } from '../image.js';

/** ΔE76 across a region's outline (3 px apart) below which the outline is soft: the region fades in. */
const CRISP_DE = 10;
/** Share of a region's pixels that must be a darkening of the expected colour for it to be shading. */
const SHADOW_SHARE = 0.8;
/** The neck opening's top lies within this share of the garment height from the garment top. */
const NECK_BAND = 0.12;

/**
 * Whether `rgb` is `expected` under less light: a multiple s·expected (0.3 ≤ s ≤ 1.08: sRGB's power law keeps a
 * product a product) within 12 % of its length.
 */
function isDarkening(r: number, g: number, b: number, e: readonly [number, number, number]): boolean {
  return !Number.isNaN(lightScale(r, g, b, e, 1.08));
}

/**
 * The light s for which `rgb` is s·expected (0.3 ≤ s ≤ `max`) within 12 % of its length, or NaN when `rgb` is
 * not `expected` under some light (another colour).
 */
function lightScale(
  r: number,
  g: number,
  b: number,
  e: readonly [number, number, number],
  max: number,
): number {
  const ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
  if (ee === 0) return Number.NaN;
  const s = (r * e[0] + g * e[1] + b * e[2]) / ee;
  if (s < 0.3 || s > max) return Number.NaN;
  const res = Math.hypot(r - s * e[0], g - s * e[1], b - s * e[2]);
  return res <= 0.12 * Math.sqrt(ee) * s + 6 ? s : Number.NaN;
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

/** Share of a super-tile window that must lie on the garment for its mean to measure the light there. */
const WINDOW_COVER = 0.9;

/**
 * `photo` with the light that varies slower than the repeat divided out (folds, a light falloff), for the
 * median tile: a window one super-tile wide holds a whole number of repeats, so its mean luminance is the
 * print's own mean times the light there, whatever the phase. The light is measured where such a window lies on
 * the garment, carried out along the row (then the column) to the garment's edge, and normalised to its median,
 * so the tile keeps the garment's typical brightness but not its gradient, which the median over repeats would
 * otherwise keep as banding (a repeat's rows taken from different heights of a falloff). Returns `photo` when
 * too little of the garment holds a whole window.
 */
export function withoutLight(photo: Raster, mask: Uint8Array, tileW: number, tileH: number): Raster {
  const { w, h } = photo;
  if (tileW >= w || tileH >= h) return photo;
  const W = w + 1;
  const sum = new Float64Array(W * (h + 1));
  const cnt = new Float64Array(W * (h + 1));
  for (let y = 0; y < h; y++) {
    let s = 0;
    let c = 0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (mask[i]) {
        const o = i * 4;
        s += 0.2126 * photo.data[o]! + 0.7152 * photo.data[o + 1]! + 0.0722 * photo.data[o + 2]!;
        c++;
      }
      sum[(y + 1) * W + x + 1] = sum[y * W + x + 1]! + s;
      cnt[(y + 1) * W + x + 1] = cnt[y * W + x + 1]! + c;
    }
  }
  const light = new Float64Array(w * h).fill(Number.NaN);
  const hx = Math.floor(tileW / 2);
  const hy = Math.floor(tileH / 2);
  const need = WINDOW_COVER * tileW * tileH;
  const known = new Float64Array(w * h);
  let nKnown = 0;
  let inside = 0;
  for (let y = 0; y < h; y++) {
    const y0 = y - hy;
    const y1 = y0 + tileH;
    const rows = y0 >= 0 && y1 <= h;
    for (let x = 0; x < w; x++) {
      if (!mask[y * w + x]) continue;
      inside++;
      const x0 = x - hx;
      const x1 = x0 + tileW;
      if (!rows || x0 < 0 || x1 > w) continue;
      const a = y1 * W + x1;
      const b = y0 * W + x1;
      const c = y1 * W + x0;
      const d = y0 * W + x0;
      const n = cnt[a]! - cnt[b]! - cnt[c]! + cnt[d]!;
      if (n < need) continue;
      const v = (sum[a]! - sum[b]! - sum[c]! + sum[d]!) / n;
      if (v <= 0) continue;
      light[y * w + x] = v;
      known[nKnown++] = v;
    }
  }
  if (nKnown < 0.3 * inside) return photo;
  const typical = kthSmallest(known.subarray(0, nKnown), nKnown >> 1);
  fillAlong(light, mask, w, h, true);
  fillAlong(light, mask, w, h, false);
  const data = new Uint8ClampedArray(photo.data);
  for (let i = 0; i < w * h; i++) {
    const l = light[i]!;
    if (!mask[i] || Number.isNaN(l)) continue;
    const k = typical / l;
    data[i * 4] = data[i * 4]! * k;
    data[i * 4 + 1] = data[i * 4 + 1]! * k;
    data[i * 4 + 2] = data[i * 4 + 2]! * k;
  }
  return { ...photo, data };
}

/** Fills the unknown (NaN) garment values of each row (or column) with the nearest known one on it. */
function fillAlong(v: Float64Array, mask: Uint8Array, w: number, h: number, rows: boolean): void {
  const lines = rows ? h : w;
  const len = rows ? w : h;
  const at = (line: number, k: number) => (rows ? line * w + k : k * w + line);
  for (let line = 0; line < lines; line++) {
    let last = Number.NaN;
    let first = -1;
    for (let k = 0; k < len; k++) {
      const i = at(line, k);
      if (!Number.isNaN(v[i]!)) {
        last = v[i]!;
        if (first < 0) first = k;
      } else if (mask[i] && !Number.isNaN(last)) v[i] = last;
    }
    if (first <= 0) continue;
    const lead = v[at(line, first)]!;
    for (let k = 0; k < first; k++) if (mask[at(line, k)]) v[at(line, k)] = lead;
  }
}

/** Below this length of the expected sRGB colour the light on it is not measured (a near-black ground's noise). */
const MIN_EXPECTED = 30;
/** Cells of the coarse light grid that hold fewer known pixels than this share are filled in, not measured. */
const CELL_COVER = 0.25;

/**
 * The light over `rect` (a placed motif and the garment around it) as a factor per pixel (1 = the light the
 * expected colours were read under), or null when too little ground shows to measure it. It is measured only
 * where `known` (rect-sized) says the ground or the repeat shows — photo = s·expected there, as a fold or a
 * falloff darkens it, see lightScale — averaged over coarse cells (the noise out, a fold's slow change kept),
 * and carried smoothly into the cells with no ground (under the motif) as the membrane through their edges
 * (Laplace's equation), so the motif's own shading and colours are never read as light.
 */
export function lightField(
  photo: Raster,
  known: Uint8Array,
  rect: Rect,
  expected: (x: number, y: number) => readonly [number, number, number],
): Float32Array | null {
  const c = Math.max(2, Math.round(Math.max(rect.w, rect.h) / 40));
  const gw = Math.ceil(rect.w / c);
  const gh = Math.ceil(rect.h / c);
  if (gw < 3 || gh < 3) return null;
  const sum = new Float64Array(gw * gh);
  const cnt = new Float64Array(gw * gh);
  for (let y = 0; y < rect.h; y++) {
    for (let x = 0; x < rect.w; x++) {
      if (!known[y * rect.w + x]) continue;
      const e = expected(rect.x + x, rect.y + y);
      if (Math.hypot(e[0], e[1], e[2]) < MIN_EXPECTED) continue;
      const o = ((rect.y + y) * photo.w + rect.x + x) * 4;
      const s = lightScale(photo.data[o]!, photo.data[o + 1]!, photo.data[o + 2]!, e, 1.6);
      if (Number.isNaN(s)) continue;
      const g = Math.floor(y / c) * gw + Math.floor(x / c);
      sum[g] = sum[g]! + s;
      cnt[g] = cnt[g]! + 1;
    }
  }
  const need = Math.max(2, CELL_COVER * c * c);
  const isKnown = new Uint8Array(gw * gh);
  let nKnown = 0;
  for (let g = 0; g < gw * gh; g++) {
    if (cnt[g]! >= need) {
      isKnown[g] = 1;
      nKnown++;
    }
  }
  if (nKnown < Math.max(8, 0.1 * gw * gh)) return null;
  // The measured cells, each the mean over its 3 × 3 neighbourhood's known pixels (less noise, same slow light).
  const v = new Float64Array(gw * gh);
  let mean = 0;
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      if (!isKnown[gy * gw + gx]) continue;
      let s = 0;
      let n = 0;
      for (let j = Math.max(0, gy - 1); j <= Math.min(gh - 1, gy + 1); j++) {
        for (let i = Math.max(0, gx - 1); i <= Math.min(gw - 1, gx + 1); i++) {
          if (!isKnown[j * gw + i]) continue;
          s += sum[j * gw + i]!;
          n += cnt[j * gw + i]!;
        }
      }
      v[gy * gw + gx] = s / n;
      mean += s / n;
    }
  }
  mean /= nKnown;
  for (let g = 0; g < gw * gh; g++) if (!isKnown[g]) v[g] = mean;
  // The other cells: Laplace's equation with the measured cells fixed (successive over-relaxation).
  for (let it = 0; it < 4000; it++) {
    let change = 0;
    for (let gy = 0; gy < gh; gy++) {
      for (let gx = 0; gx < gw; gx++) {
        const g = gy * gw + gx;
        if (isKnown[g]) continue;
        const l = gx > 0 ? v[g - 1]! : v[g + 1]!;
        const r = gx < gw - 1 ? v[g + 1]! : v[g - 1]!;
        const t = gy > 0 ? v[g - gw]! : v[g + gw]!;
        const b = gy < gh - 1 ? v[g + gw]! : v[g - gw]!;
        const d = (l + r + t + b) / 4 - v[g]!;
        v[g] = v[g]! + 1.8 * d;
        change = Math.max(change, Math.abs(d));
      }
    }
    if (change < 1e-5) break;
  }
  // A fold is a line: its light runs on along it, across a motif that hides it, where the membrane would let it
  // fade out from the motif's edges in (a narrow fold under a wide motif would keep most of its shadow). Along
  // the light's least-changing direction (the structure tensor of the measured cells), each filled cell takes
  // the measured light on both sides of it on that line, weighed by distance; the more the light runs one way
  // (its coherence), the more this counts against the membrane.
  let jxx = 0;
  let jxy = 0;
  let jyy = 0;
  for (let gy = 1; gy < gh - 1; gy++) {
    for (let gx = 1; gx < gw - 1; gx++) {
      const g = gy * gw + gx;
      if (!(isKnown[g - 1] && isKnown[g + 1] && isKnown[g - gw] && isKnown[g + gw])) continue;
      const dx = (v[g + 1]! - v[g - 1]!) / 2;
      const dy = (v[g + gw]! - v[g - gw]!) / 2;
      jxx += dx * dx;
      jxy += dx * dy;
      jyy += dy * dy;
    }
  }
  const coherence = jxx + jyy > 0 ? Math.hypot(jxx - jyy, 2 * jxy) / (jxx + jyy) : 0;
  if (coherence > 0) {
    const along = 0.5 * Math.atan2(2 * jxy, jxx - jyy) + Math.PI / 2;
    const ux = Math.cos(along);
    const uy = Math.sin(along);
    const reach = (gx: number, gy: number, sign: number): { t: number; v: number } | null => {
      for (let t = 0.5; ; t += 0.5) {
        const x = Math.round(gx + sign * t * ux);
        const y = Math.round(gy + sign * t * uy);
        if (x < 0 || y < 0 || x >= gw || y >= gh) return null;
        if (isKnown[y * gw + x]) return { t, v: v[y * gw + x]! };
      }
    };
    const carried = new Float64Array(v);
    for (let gy = 0; gy < gh; gy++) {
      for (let gx = 0; gx < gw; gx++) {
        const g = gy * gw + gx;
        if (isKnown[g]) continue;
        const a = reach(gx, gy, 1);
        const b = reach(gx, gy, -1);
        const line = a && b ? (a.v * b.t + b.v * a.t) / (a.t + b.t) : (a ?? b)?.v;
        if (line !== undefined) carried[g] = coherence * line + (1 - coherence) * v[g]!;
      }
    }
    v.set(carried);
  }
  // Bilinear up to the pixels.
  const out = new Float32Array(rect.w * rect.h);
  for (let y = 0; y < rect.h; y++) {
    const u = Math.min(gh - 1, Math.max(0, (y + 0.5) / c - 0.5));
    const y0 = Math.floor(u);
    const y1 = Math.min(gh - 1, y0 + 1);
    const fy = u - y0;
    for (let x = 0; x < rect.w; x++) {
      const t = Math.min(gw - 1, Math.max(0, (x + 0.5) / c - 0.5));
      const x0 = Math.floor(t);
      const x1 = Math.min(gw - 1, x0 + 1);
      const fx = t - x0;
      const top = v[y0 * gw + x0]! * (1 - fx) + v[y0 * gw + x1]! * fx;
      const bottom = v[y1 * gw + x0]! * (1 - fx) + v[y1 * gw + x1]! * fx;
      out[y * rect.w + x] = top * (1 - fy) + bottom * fy;
    }
  }
  return out;
}
