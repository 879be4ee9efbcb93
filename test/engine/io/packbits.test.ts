/** PackBits as PSD uses it: Apple's TN1023 example, and round trips through ag-psd's own (independent) decoder. */
import { createReader, readDataRLE } from 'ag-psd/dist/psdReader.js';
import { describe, expect, it } from 'vitest';
import { layerChannelBytes, packChannel, packedRowLimit } from '../../../src/engine/io/packbits.js';
import { rng } from '../../support/rng.js';

function unpack(bytes: Uint8Array, w: number, h: number, large: boolean): Uint8Array {
  const out = new Uint8Array(w * h * 4);
  readDataRLE(
    createReader(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    { width: w, height: h, data: out },
    w,
    h,
    8,
    4,
    [0],
    large,
  );
  return out.filter((_, i) => i % 4 === 0);
}

describe('packChannel', () => {
  it("packs Apple TN1023's example as the note does", () => {
    const row = Uint8Array.from([
      0xaa, 0xaa, 0xaa, 0x80, 0x00, 0x2a, 0xaa, 0xaa, 0xaa, 0xaa, 0x80, 0x00, 0x2a, 0x22, 0xaa, 0xaa, 0xaa,
      0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
    ]);
    const p = packChannel(row, row.length, 1, 1, 0);
    expect([...p.data]).toEqual([
      0xfe, 0xaa, 0x02, 0x80, 0x00, 0x2a, 0xfd, 0xaa, 0x03, 0x80, 0x00, 0x2a, 0x22, 0xf7, 0xaa,
    ]);
    expect([...p.rowBytes]).toEqual([15]);
  });

  it('round-trips noise, runs, long rows and inverted samples through ag-psd, in PSD and PSB form', () => {
    const rand = rng(7);
    for (const [w, h] of [
      [1, 1],
      [2, 3],
      [129, 4],
      [1000, 5],
    ] as const) {
      const src = new Uint8Array(w * h * 5);
      for (let i = 0; i < src.length; i++) src[i] = rand() < 0.5 ? Math.floor(rand() * 256) : 7;
      for (const large of [false, true]) {
        for (const offset of [0, 4]) {
          const p = packChannel(src, w, h, 5, offset, offset === 0);
          for (const n of p.rowBytes) expect(n).toBeLessThanOrEqual(packedRowLimit(w));
          const back = unpack(layerChannelBytes(p, large), w, h, large);
          const want = Uint8Array.from({ length: w * h }, (_, i) =>
            offset === 0 ? 255 - src[i * 5]! : src[i * 5 + 4]!,
          );
          expect(Buffer.compare(Buffer.from(back), Buffer.from(want))).toBe(0);
        }
      }
    }
  });
});
