/**
 * Whether a layer's channels, still packed as the file holds them, are one colour: a canvas-sized Background
 * (Photoshop's white one, or our fill layer written as pixels) is then read as a fill without unpacking
 * width × height × 4 bytes only to find them all equal (issue 13: a 9000 × 18000 marker's background took
 * 648 MB and a third of its opening time).
 */
import type { LayerRawDataChannel as AgChannel, LayerRawData } from 'ag-psd';
import type { RGB } from '../model.js';

const RAW = 0;
const RLE = 1;

/**
 * The single sample value of a `w × h` channel (its data after the compression word), or undefined when it
 * holds more than one value, is cut short or is compressed otherwise (ZIP channels are not looked into).
 */
export function uniformSample(c: AgChannel, w: number, h: number, large: boolean): number | undefined {
  const d = c.data;
  if (!d || w <= 0 || h <= 0) return undefined;
  if (c.compression === RAW) {
    if (d.length < w * h) return undefined;
    const v = d[0]!;
    for (let i = 1; i < w * h; i++) if (d[i] !== v) return undefined;
    return v;
  }
  if (c.compression !== RLE) return undefined;
  const countSize = large ? 4 : 2;
  const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
  let at = h * countSize;
  if (at > d.length) return undefined;
  let v = -1;
  for (let y = 0; y < h; y++) {
    const count = large ? view.getUint32(y * 4) : view.getUint16(y * 2);
    const end = at + count;
    if (end > d.length) return undefined;
    let samples = 0;
    while (at < end) {
      const n = d[at++]!;
      if (n === 128) continue;
      if (n > 128) {
        if (at >= end) return undefined;
        const s = d[at++]!;
        if (v < 0) v = s;
        if (s !== v) return undefined;
        samples += 257 - n;
      } else {
        if (at + n + 1 > end) return undefined;
        for (let k = 0; k <= n; k++) {
          const s = d[at++]!;
          if (v < 0) v = s;
          if (s !== v) return undefined;
        }
        samples += n + 1;
      }
    }
    if (samples !== w) return undefined;
  }
  return v < 0 ? undefined : v;
}

/**
 * The colour of an RGB layer of `w × h` whose channels are each one value and that is opaque (no transparency
 * channel, or one that is all 255); undefined otherwise.
 */
export function uniformOpaqueColour(raw: LayerRawData, w: number, h: number): RGB | undefined {
  if (raw.bitsPerChannel !== 8 || raw.colorMode !== 3) return undefined;
  const of = (id: number) => raw.channels.find((c) => c.id === id);
  const alpha = of(-1);
  if (alpha && uniformSample(alpha, w, h, raw.large) !== 255) return undefined;
  const rgb = [0, 1, 2].map((id) => {
    const c = of(id);
    return c ? uniformSample(c, w, h, raw.large) : undefined;
  });
  if (rgb.some((v) => v === undefined)) return undefined;
  return { r: rgb[0]!, g: rgb[1]!, b: rgb[2]! };
}
