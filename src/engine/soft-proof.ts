/**
 * What a CMYK document looks like printed, for the screen (Photoshop shows a CMYK document through its profile,
 * always). The engine composites in sRGB, and blends, adjustments and images placed after the conversion give
 * colours the press cannot print: shown as they are, a vivid RGB photo in a CMYK poster looked vivid on the
 * canvas and came out dull in the saved file.
 *
 * A pixel whose inks the document keeps (raster-inks.ts: a layer's own inks, a colour a tool separated) prints as
 * it is shown already: it was made from those very inks. Every other pixel is separated when saved, and is shown
 * through that separation: sRGB → CMYK → sRGB with the document's profile. Separating a kept pixel again would
 * move it (5 levels on average, 25 at most, with the default profile), so the two are told apart per pixel.
 *
 * The proof is made on the picture as shown, at its size, not on the full-resolution composite: the studio shows
 * an A2 poster at 300 DPI (35 Mpx) in a window, and proofing it whole took seconds per edit. Each shown pixel is
 * judged kept or not by the composite pixel at its centre.
 */
import { cmykaFromRgba, rgbaFromCmyk } from './cmyk-pixels.js';
import type { DocState, Raster } from './model.js';
import { documentProfile, type PressProfile } from './press-profile.js';
import { cropRaster } from './raster.js';
import { documentInkSources, type InkSource, inkOf } from './raster-inks.js';
import sharp from './sharp.js';
import { showSpotInks } from './spot-display.js';

/** Rows of the buffer the pixels to separate are packed into (libvips limits an image's width). */
const PACK_WIDTH = 4096;

/** Shown pixels looked at and separated at a time. */
const BAND_PIXELS = 1 << 20;

/**
 * The canvas of `state` as a person sees it at `w` × `h` (never larger than the canvas): its `composite` cut to the
 * canvas, scaled down (Lanczos), a CMYK document proofed, and with `spotInks` its spot plates printed over it
 * (spot-display.ts: the screen's picture, not an export's). A new raster: the composite is shared.
 */
export async function shownCanvas(
  state: DocState,
  composite: Raster,
  w: number,
  h: number,
  opts: { readonly spotInks?: boolean } = {},
): Promise<Raster> {
  const { width, height } = state;
  const whole = { x: 0, y: 0, w: width, h: height };
  const canvas =
    composite.x === 0 && composite.y === 0 && composite.w === width && composite.h === height
      ? composite
      : cropRaster(composite, whole);
  let shown: Raster;
  if (w !== width || h !== height) {
    const input = Buffer.from(canvas.data.buffer, canvas.data.byteOffset, canvas.data.byteLength);
    const data = await sharp(input, { raw: { width, height, channels: 4 }, limitInputPixels: false })
      .resize(w, h, { kernel: 'lanczos3', fit: 'fill' })
      .raw()
      .toBuffer();
    shown = { x: 0, y: 0, w, h, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
  } else {
    shown =
      canvas === composite && state.mode === 'cmyk'
        ? { ...canvas, data: new Uint8ClampedArray(canvas.data) }
        : canvas;
  }
  await softProof(state, composite, shown.data, w, h);
  if (opts.spotInks && state.channels?.some((c) => c.kind === 'spot')) {
    if (shown === composite) shown = { ...shown, data: new Uint8ClampedArray(shown.data) };
    await showSpotInks(state, shown.data, w, h);
  }
  return shown;
}

/**
 * `shown` (straight RGBA, the canvas `width` × `height` of `state` scaled to `shownW` × `shownH`) proofed in place
 * for a CMYK document; returned unchanged for an RGB one. `composite` is the document's full-resolution composite.
 */
async function softProof(
  state: DocState,
  composite: Raster,
  shown: Uint8Array | Uint8ClampedArray,
  shownW: number,
  shownH: number,
): Promise<void> {
  if (state.mode !== 'cmyk' || shownW <= 0 || shownH <= 0) return;
  const profile = documentProfile(state);
  const sources = documentInkSources(state, profile.bytes);
  const sx = state.width / shownW;
  const sy = state.height / shownH;
  // Bands of rows, so that a full-size proof (a PNG export) holds a few megabytes of scratch at a time.
  const bandRows = Math.max(1, Math.floor(BAND_PIXELS / shownW));
  const fresh = new Int32Array(Math.min(shownH, bandRows) * shownW);
  for (let j0 = 0; j0 < shownH; j0 += bandRows) {
    let count = 0;
    for (let j = j0; j < Math.min(shownH, j0 + bandRows); j++) {
      const y = Math.min(state.height - 1, Math.floor((j + 0.5) * sy));
      for (let i = 0; i < shownW; i++) {
        const p = j * shownW + i;
        if (shown[p * 4 + 3] === 0) continue;
        const x = Math.min(state.width - 1, Math.floor((i + 0.5) * sx));
        if (!printsAsShown(composite, x, y, sources)) fresh[count++] = p;
      }
    }
    if (count > 0) await separateAndShow(shown, fresh, count, profile);
  }
}

/** The `count` pixels of `shown` listed in `fresh`, through the separation and back, in place (alpha kept). */
async function separateAndShow(
  shown: Uint8Array | Uint8ClampedArray,
  fresh: Int32Array,
  count: number,
  profile: PressProfile,
): Promise<void> {
  const w = Math.min(PACK_WIDTH, count);
  const h = Math.ceil(count / w);
  const packed = new Uint8ClampedArray(w * h * 4);
  for (let k = 0; k < count; k++) packed.set(shown.subarray(fresh[k]! * 4, fresh[k]! * 4 + 4), k * 4);
  const cmyka = await cmykaFromRgba(packed, w, h, profile.path);
  const printed = await rgbaFromCmyk(cmyka, w, h, 5, profile.bytes);
  for (let k = 0; k < count; k++) {
    const o = fresh[k]! * 4;
    shown[o] = printed[k * 4]!;
    shown[o + 1] = printed[k * 4 + 1]!;
    shown[o + 2] = printed[k * 4 + 2]!;
  }
}

/** Whether the composite pixel at document point (x, y) is saved with inks the document keeps (takeKeptInks). */
function printsAsShown(composite: Raster, x: number, y: number, sources: readonly InkSource[]): boolean {
  const cx = x - composite.x;
  const cy = y - composite.y;
  if (cx < 0 || cy < 0 || cx >= composite.w || cy >= composite.h) return true; // transparent: no ink
  const i = (cy * composite.w + cx) * 4;
  const c = composite.data;
  if (c[i + 3] === 0) return true;
  for (const source of sources) {
    if ('table' in source) {
      if (inkOf(source.table, c[i]!, c[i + 1]!, c[i + 2]!) >= 0) return true;
      continue;
    }
    const r = source.raster;
    const rx = x - r.x;
    const ry = y - r.y;
    if (rx < 0 || ry < 0 || rx >= r.w || ry >= r.h) continue;
    const j = (ry * r.w + rx) * 4;
    const d = r.data;
    if (d[j] === c[i] && d[j + 1] === c[i + 1] && d[j + 2] === c[i + 2] && d[j + 3] === c[i + 3]) return true;
  }
  return false;
}
