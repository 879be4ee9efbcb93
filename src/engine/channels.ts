/**
 * A document's spot and alpha channels (DocState `channels`) through the edits that change the canvas: they
 * move, are cut and resampled with it, as in Photoshop. What a larger canvas adds to them is blank: no ink on a
 * spot plate (255, white in the Channels panel), unselected in an alpha channel (0, black).
 */
import type { DocChannel, Mask, Rect } from './model.js';
import { combineSelections, type SelectionMode, sampleMask } from './selection.js';
import sharp from './sharp.js';
import { scaleMask } from './transform.js';

const blankOf = (c: DocChannel): 0 | 255 => (c.kind === 'spot' ? 255 : 0);

/** `plane` (w × h bytes placed at x, y) on a blank canvas of `width × height`. */
function onCanvas(
  c: DocChannel,
  plane: Rect & { data: Uint8Array },
  width: number,
  height: number,
): DocChannel {
  const data = new Uint8Array(width * height).fill(blankOf(c));
  const x0 = Math.max(0, plane.x);
  const x1 = Math.min(width, plane.x + plane.w);
  for (let y = Math.max(0, plane.y); y < Math.min(height, plane.y + plane.h); y++) {
    if (x1 <= x0) break;
    const from = (y - plane.y) * plane.w + (x0 - plane.x);
    data.set(plane.data.subarray(from, from + x1 - x0), y * width + x0);
  }
  return { ...c, data };
}

/** The channels of a `width × height` canvas on the canvas `frame` (reframeCanvas: in the old canvas' coordinates). */
export function reframedChannels(
  channels: readonly DocChannel[],
  width: number,
  height: number,
  frame: Rect,
): DocChannel[] {
  return channels.map((c) =>
    onCanvas(c, { x: -frame.x, y: -frame.y, w: width, h: height, data: c.data }, frame.w, frame.h),
  );
}

/** The channels of a `width × height` canvas resampled to `toWidth × toHeight` (lanczos3, as layer masks). */
export async function resizedChannels(
  channels: readonly DocChannel[],
  width: number,
  height: number,
  toWidth: number,
  toHeight: number,
): Promise<DocChannel[]> {
  const out: DocChannel[] = [];
  for (const c of channels) {
    const mask: Mask = { x: 0, y: 0, w: width, h: height, data: c.data, outside: blankOf(c) };
    const scaled = await scaleMask(mask, toWidth / width, toHeight / height, { x: 0, y: 0 });
    out.push(onCanvas(c, scaled, toWidth, toHeight));
  }
  return out;
}

/**
 * A channel's bytes (`width × height`) fitted to `w × h` (Lanczos, as the picture it goes with is): for a picture
 * shown or exported at another size, where the canvas is not resized.
 */
export async function planeFitted(
  data: Uint8Array,
  width: number,
  height: number,
  w: number,
  h: number,
): Promise<Uint8Array> {
  if (w === width && h === height) return data;
  const input = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const out = await sharp(input, { raw: { width, height, channels: 1 }, limitInputPixels: false })
    .resize(w, h, { kernel: 'lanczos3', fit: 'fill' })
    // One band out: libvips hands a grey image on as sRGB, three bands, unless told.
    .extractChannel(0)
    .raw()
    .toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** Photoshop's name for a new alpha channel: "Alpha N", N one more than the highest such number there is. */
export function nextAlphaName(channels: readonly DocChannel[]): string {
  let highest = 0;
  for (const c of channels) {
    const n = /^Alpha (\d+)$/.exec(c.name);
    if (n) highest = Math.max(highest, Number(n[1]));
  }
  return `Alpha ${highest + 1}`;
}

/**
 * An identifier (image resource 1053) none of `channels` has: a file's alternate spot colours name its plates by
 * these, so a new channel must not take one; 0 is the merged transparency's.
 */
export function newChannelIdentifier(channels: readonly DocChannel[]): number {
  return Math.max(0, ...channels.map((c) => c.identifier ?? 0)) + 1;
}

/**
 * The selection `selection` saved into an alpha channel of a `width × height` canvas (Photoshop's Select › Save
 * Selection): its bytes alone for a new channel or `replace`, else combined with the channel's as selections are
 * (add the larger, subtract the channel less the selection, intersect the smaller).
 */
export function savedSelection(
  selection: Mask,
  width: number,
  height: number,
  into: DocChannel | null,
  mode: SelectionMode,
): Uint8Array {
  const canvas = { x: 0, y: 0, w: width, h: height };
  const combined =
    into && mode !== 'replace'
      ? combineSelections({ ...canvas, data: into.data, outside: 0 }, selection, mode, width, height)
      : selection;
  if (!combined) return new Uint8Array(width * height);
  const plane = sampleMask(combined, canvas);
  return typeof plane === 'number' ? new Uint8Array(width * height).fill(plane) : plane;
}
