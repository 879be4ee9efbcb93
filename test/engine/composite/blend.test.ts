import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../../src/engine/composite/compositor.js';
import { BLEND_MODES, type BlendMode } from '../../../src/engine/model.js';
import { rng } from '../../support/rng.js';
import { atopRef, compositeRef } from './reference.js';
import { doc, type Px, pixel, px, rasterOf, solid } from './support.js';

/** Every mode with a per-pixel formula ('dissolve' scatters pixels; 'pass through' is for groups). */
const MODES = BLEND_MODES.filter((m) => m !== 'pass through' && m !== 'dissolve');

/** Backdrop layer under a `mode` layer, one pixel per test case, composited by the real compositor. */
function blendPair(mode: BlendMode, backdrop: Px[], source: Px[], opacity: number): Px[] {
  const w = backdrop.length;
  const rect = { x: 0, y: 0, w, h: 1 };
  const state = doc(
    w,
    1,
    [
      pixel(
        1,
        rasterOf(rect, (x) => backdrop[x]!),
      ),
      pixel(
        2,
        rasterOf(rect, (x) => source[x]!),
        { blend: mode, opacity },
      ),
    ],
    [1, 2],
  );
  const out = renderDocument(state);
  return backdrop.map((_, x) => px(out, x, 0));
}

/** Random pixels, with the extremes (0, 255) and the mid-point pair (127, 128) over-represented. */
function randomPixels(seed: number, n: number): Px[] {
  const r = rng(seed);
  const channel = (): number => {
    const u = r();
    if (u < 0.1) return 0;
    if (u < 0.2) return 255;
    if (u < 0.25) return 128;
    if (u < 0.3) return 127;
    return Math.floor(r() * 256);
  };
  const alpha = (): number => {
    const u = r();
    if (u < 0.15) return 255;
    if (u < 0.2) return 0;
    return 1 + Math.floor(r() * 254);
  };
  return Array.from({ length: n }, () => [channel(), channel(), channel(), alpha()] as const);
}

describe('blend modes against a scalar W3C reference', () => {
  const N = 4000;
  const backdrop = randomPixels(1, N);
  const source = randomPixels(2, N);
  for (const mode of MODES) {
    for (const opacity of [1, 0.6]) {
      it(`${mode}, opacity ${opacity}`, () => {
        const got = blendPair(mode, backdrop, source, opacity);
        let worst = 0;
        let where = -1;
        for (let i = 0; i < N; i++) {
          const want = compositeRef(mode, backdrop[i]!, source[i]!, opacity);
          const g = got[i]!;
          // Colour means nothing once alpha rounds to 0 (the compositor stores 0, 0, 0, 0 there).
          const channels = g[3] === 0 ? [3] : [0, 1, 2, 3];
          for (const c of channels) {
            const d = Math.abs(g[c]! - want[c]!);
            if (d > worst) {
              worst = d;
              where = i;
            }
          }
        }
        expect(worst, `pixel ${where}: ${backdrop[where]} under ${source[where]}`).toBeLessThanOrEqual(1);
      });
    }
  }
});

describe('clipped layers (source-atop) against the scalar reference', () => {
  const N = 2000;
  const backdrop = randomPixels(3, N);
  const source = randomPixels(4, N);
  for (const mode of MODES) {
    it(mode, () => {
      const rect = { x: 0, y: 0, w: N, h: 1 };
      const state = doc(
        N,
        1,
        [
          pixel(
            1,
            rasterOf(rect, (x) => backdrop[x]!),
          ),
          pixel(
            2,
            rasterOf(rect, (x) => source[x]!),
            { blend: mode, opacity: 0.8, clipped: true },
          ),
        ],
        [1, 2],
      );
      const out = renderDocument(state);
      let worst = 0;
      for (let i = 0; i < N; i++) {
        const want = atopRef(mode, backdrop[i]!, source[i]!, 0.8);
        const got = px(out, i, 0);
        for (const c of got[3] === 0 ? [3] : [0, 1, 2, 3])
          worst = Math.max(worst, Math.abs(got[c]! - want[c]!));
      }
      expect(worst).toBeLessThanOrEqual(1);
    });
  }
});

describe('blend modes: hand-computed values', () => {
  const red: Px = [255, 0, 0, 255];
  const grey: Px = [128, 128, 128, 255];
  const one = (mode: BlendMode, b: Px, s: Px, opacity = 1): Px => blendPair(mode, [b], [s], opacity)[0]!;

  it('multiply: 50% grey over red keeps red at half intensity', () => {
    expect(one('multiply', red, grey)).toEqual([128, 0, 0, 255]);
  });

  it('multiply: half-transparent blue over opaque yellow', () => {
    // B = (0, 0, 0); αs = 128/255; Co = αs·0 + (1 − αs)·Cb = 127/255 · (255, 255, 0).
    expect(one('multiply', [255, 255, 0, 255], [0, 0, 255, 128])).toEqual([127, 127, 0, 255]);
  });

  it('screen: 50% grey over red', () => {
    // r: 1 + g − g = 1; g, b: 0 + g − 0 = 128/255.
    expect(one('screen', red, grey)).toEqual([255, 128, 128, 255]);
  });

  it('normal over a transparent backdrop is the source', () => {
    expect(one('multiply', [0, 0, 0, 0], [10, 20, 30, 200])).toEqual([10, 20, 30, 200]);
  });

  it('a blend mode over a half-transparent backdrop mixes source and blend by backdrop alpha', () => {
    // αb = 0.5 (128/255 ≈ 0.502), αs = 1: Cr = (1 − αb)·Cs + αb·Cb·Cs; white source → Cr = 1 everywhere.
    expect(one('multiply', [255, 0, 0, 128], [255, 255, 255, 255])).toEqual([255, 127, 127, 255]);
  });

  it('luminosity: 50% grey over red', () => {
    // SetLum(red, 128/255): (1.202, 0.202, 0.202) → ClipColor pulls max to 1: (255, 73.57, 73.57).
    expect(one('luminosity', red, grey)).toEqual([255, 74, 74, 255]);
  });

  it('luminosity: white over red is white', () => {
    expect(one('luminosity', red, [255, 255, 255, 255])).toEqual([255, 255, 255, 255]);
  });

  it('hue: blue over red', () => {
    // SetSat(blue, 1) = blue; SetLum(·, 0.3) = (0.19, 0.19, 1.19) → ClipColor → (54.44, 54.44, 255).
    expect(one('hue', red, [0, 0, 255, 255])).toEqual([54, 54, 255, 255]);
  });

  it('color: green over 50% grey', () => {
    // SetLum(green, 128/255) = (−0.088, 0.912, −0.088) → ClipColor lifts min to 0: (0, 216.95, 0).
    expect(one('color', grey, [0, 255, 0, 255])).toEqual([0, 217, 0, 255]);
  });

  it('hard mix: complementary values tie, and the backdrop above half wins', () => {
    expect(one('hard mix', [200, 55, 128, 255], [55, 200, 127, 255])).toEqual([255, 0, 255, 255]);
  });

  it('color burn and color dodge honour their backdrop extremes', () => {
    expect(one('color burn', [255, 255, 255, 255], [0, 0, 0, 255])).toEqual([255, 255, 255, 255]);
    expect(one('color dodge', [0, 0, 0, 255], [255, 255, 255, 255])).toEqual([0, 0, 0, 255]);
  });
});

describe('dissolve', () => {
  it('shows each pixel either fully or not at all, in proportion to alpha', () => {
    const rect = { x: 0, y: 0, w: 200, h: 100 };
    const state = doc(
      200,
      100,
      [
        pixel(1, solid(rect, [0, 0, 255, 255])),
        pixel(2, solid(rect, [255, 0, 0, 255]), { blend: 'dissolve', opacity: 0.3 }),
      ],
      [1, 2],
    );
    const out = renderDocument(state);
    let shown = 0;
    for (let i = 0; i < out.data.length; i += 4) {
      const p = [out.data[i], out.data[i + 1], out.data[i + 2], out.data[i + 3]];
      if (p[0] === 255) {
        expect(p).toEqual([255, 0, 0, 255]);
        shown++;
      } else {
        expect(p).toEqual([0, 0, 255, 255]);
      }
    }
    expect(shown / (200 * 100)).toBeGreaterThan(0.27);
    expect(shown / (200 * 100)).toBeLessThan(0.33);
  });
});
