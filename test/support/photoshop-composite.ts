/**
 * A PSD saved by Photoshop, composited by the engine and compared with Photoshop's own composite (the file's merged
 * image), both over white, channel by channel.
 */
import { readFileSync } from 'node:fs';
import { type Layer, readPsd, writePsdBuffer } from 'ag-psd';
import { expect } from 'vitest';
import { renderDocument } from '../../src/engine/composite/compositor.js';
import { decodePsd } from '../../src/engine/io/psd.js';

export interface CompositeDifference {
  /** The largest difference, levels. */
  readonly max: number;
  /** The mean difference, levels. */
  readonly mean: number;
  /** The share of channel values more than 8 levels off. */
  readonly off: number;
  /** What opening the file said. */
  readonly warnings: readonly string[];
}

export async function againstPhotoshopComposite(file: URL): Promise<CompositeDifference> {
  const buf = readFileSync(file);
  // Decoded first: it sets ag-psd up to read the merged image.
  const { state, warnings } = await decodePsd(buf);
  const ours = renderDocument(state);
  const ref = readPsd(buf, { skipLayerImageData: true, skipThumbnail: true, useImageData: true }).imageData!;
  expect([ours.w, ours.h]).toEqual([ref.width, ref.height]);
  let max = 0;
  let sum = 0;
  let off = 0;
  for (let i = 0; i < ref.data.length; i += 4) {
    const a = ref.data[i + 3]! / 255;
    const b = ours.data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(ref.data[i + c]! * a + 255 * (1 - a) - (ours.data[i + c]! * b + 255 * (1 - b)));
      max = Math.max(max, d);
      sum += d;
      if (d > 8) off++;
    }
  }
  const n = (ref.data.length / 4) * 3;
  return { max, mean: sum / n, off: off / n, warnings };
}

/**
 * A PSD (ag-psd's writing) with one 32 × 32 grey square at (8, 8) on a 48 × 48 canvas, carrying `effects`: what a
 * test of an effect Atelier does not draw opens. ag-psd must have been set up to write pixels (decodePsd does it).
 */
export function styledSquarePsd(name: string, effects: NonNullable<Layer['effects']>): Buffer {
  const data = new Uint8ClampedArray(32 * 32 * 4).fill(200);
  return Buffer.from(
    writePsdBuffer({
      width: 48,
      height: 48,
      children: [
        { name, top: 8, left: 8, imageData: { width: 32, height: 32, data, colorSpace: 'srgb' }, effects },
      ],
    } as never),
  );
}
