/** One-colour channels found in their packed bytes (psd-uniform.ts), and a flat Background opened as a fill. */
import { describe, expect, it } from 'vitest';
import { layerChannelBytes, packChannel } from '../../../src/engine/io/packbits.js';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import { uniformOpaqueColour, uniformSample } from '../../../src/engine/io/psd-uniform.js';
import { doc, pixel, rasterOf, solid } from '../composite/support.js';

const rle = (plane: Uint8Array, w: number, h: number, large = false) => ({
  id: 0 as const,
  compression: 1 as const,
  data: layerChannelBytes(packChannel(plane, w, h, 1, 0), large),
});

describe('uniformSample', () => {
  it('finds the value of a one-value channel, packed (PSD and PSB row counts) or raw', () => {
    for (const [w, h] of [
      [1, 1],
      [2, 3],
      [300, 7],
    ] as const) {
      const plane = new Uint8Array(w * h).fill(201);
      expect(uniformSample(rle(plane, w, h), w, h, false), `${w}×${h}`).toBe(201);
      expect(uniformSample(rle(plane, w, h, true), w, h, true), `${w}×${h} PSB`).toBe(201);
      expect(uniformSample({ id: 0, compression: 0, data: plane }, w, h, false)).toBe(201);
    }
  });

  it('refuses a channel with one other sample anywhere, a short or cut one, and ZIP', () => {
    const [w, h] = [300, 7];
    for (const at of [0, 1, 299, 1000, w * h - 1]) {
      const plane = new Uint8Array(w * h).fill(9);
      plane[at] = 10;
      expect(uniformSample(rle(plane, w, h), w, h, false), `at ${at}`).toBeUndefined();
      expect(uniformSample({ id: 0, compression: 0, data: plane }, w, h, false)).toBeUndefined();
    }
    const plane = new Uint8Array(w * h).fill(9);
    const packed = rle(plane, w, h);
    // Declared wider than its rows, or cut short.
    expect(uniformSample(packed, w + 1, h, false)).toBeUndefined();
    expect(
      uniformSample({ ...packed, data: packed.data.subarray(0, packed.data.length - 1) }, w, h, false),
    ).toBeUndefined();
    expect(uniformSample({ id: 0, compression: 2, data: packed.data }, w, h, false)).toBeUndefined();
    expect(uniformSample({ id: 0, compression: 0, data: plane.subarray(1) }, w, h, false)).toBeUndefined();
  });

  it('reads literal packets too (other writers pack short rows as literals)', () => {
    // Two rows of 3 samples: a literal of 3 (header 2), and a repeat of 3 (header 254).
    const data = Uint8Array.from([0, 4, 0, 2, 2, 7, 7, 7, 254, 7]);
    expect(uniformSample({ id: 0, compression: 1, data }, 3, 2, false)).toBe(7);
  });
});

describe('uniformOpaqueColour', () => {
  const [w, h] = [40, 3];
  const chan = (id: number, v: number) => ({ ...rle(new Uint8Array(w * h).fill(v), w, h), id: id as 0 });
  const raw = (channels: ReturnType<typeof chan>[]) => ({
    colorMode: 3 as const,
    bitsPerChannel: 8,
    channels,
    large: false,
  });

  it('is the colour when every colour channel is one value and any transparency is all opaque', () => {
    expect(uniformOpaqueColour(raw([chan(0, 1), chan(1, 2), chan(2, 3)]), w, h)).toEqual({
      r: 1,
      g: 2,
      b: 3,
    });
    expect(uniformOpaqueColour(raw([chan(-1, 255), chan(0, 1), chan(1, 2), chan(2, 3)]), w, h)).toEqual({
      r: 1,
      g: 2,
      b: 3,
    });
  });

  it('is undefined when transparent, a channel is missing or not RGB', () => {
    expect(
      uniformOpaqueColour(raw([chan(-1, 254), chan(0, 1), chan(1, 2), chan(2, 3)]), w, h),
    ).toBeUndefined();
    expect(uniformOpaqueColour(raw([chan(0, 1), chan(1, 2)]), w, h)).toBeUndefined();
    expect(
      uniformOpaqueColour({ ...raw([chan(0, 1), chan(1, 2), chan(2, 3)]), colorMode: 4 }, w, h),
    ).toBeUndefined();
  });
});

describe('a canvas-sized one-colour bottom layer', () => {
  it('opens as a fill, and a bottom layer that differs in one pixel as pixels', async () => {
    const [W, H] = [64, 48];
    const flat = solid({ x: 0, y: 0, w: W, h: H }, [240, 230, 10, 255]);
    const top = pixel(2, solid({ x: 3, y: 4, w: 5, h: 6 }, [1, 2, 3, 200]));
    const state = doc(W, H, [pixel(1, flat, { name: '底' }), top], [1, 2]);
    const composite = rasterOf({ x: 0, y: 0, w: W, h: H }, () => [9, 9, 9, 255]);
    const back = (await decodePsd((await encodePsd(state, composite)).buffer)).state.layers.get(1)!;
    expect(back.kind).toBe('fill');
    expect(back.kind === 'fill' && back.color).toEqual({ r: 240, g: 230, b: 10 });

    const spotted = { ...flat, data: flat.data.slice() };
    spotted.data[(20 * W + 30) * 4 + 1] = 231;
    const other = doc(W, H, [pixel(1, spotted, { name: '底' }), top], [1, 2]);
    const back2 = (await decodePsd((await encodePsd(other, composite)).buffer)).state.layers.get(1)!;
    expect(back2.kind).toBe('pixel');
  });
});
