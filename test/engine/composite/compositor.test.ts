import { describe, expect, it } from 'vitest';
import { layerBounds } from '../../../src/engine/composite/bounds.js';
import { renderDocument } from '../../../src/engine/composite/compositor.js';
import { cropRaster } from '../../../src/engine/raster.js';
import { rng } from '../../support/rng.js';
import { doc, fill, group, maskOf, maxDiff, pixel, px, rasterOf, solid } from './support.js';

const RED = [255, 0, 0, 255] as const;
const BLUE = [0, 0, 255, 255] as const;
const GREY = [128, 128, 128, 255] as const;
const CLEAR = [0, 0, 0, 0] as const;
const all = { x: 0, y: 0, w: 4, h: 4 };

describe('layers', () => {
  it('an empty document is transparent', () => {
    const out = renderDocument(doc(3, 2, [], []));
    expect(out).toMatchObject({ x: 0, y: 0, w: 3, h: 2 });
    expect([...out.data].every((v) => v === 0)).toBe(true);
  });

  it('stacks bottom to top and leaves uncovered pixels transparent', () => {
    const state = doc(
      4,
      4,
      [pixel(1, solid({ x: 0, y: 0, w: 2, h: 2 }, RED)), pixel(2, solid({ x: 1, y: 1, w: 2, h: 2 }, BLUE))],
      [1, 2],
    );
    const out = renderDocument(state);
    expect(px(out, 0, 0)).toEqual(RED);
    expect(px(out, 1, 1)).toEqual(BLUE);
    expect(px(out, 2, 2)).toEqual(BLUE);
    expect(px(out, 3, 3)).toEqual(CLEAR);
  });

  it('skips hidden layers and applies opacity', () => {
    const state = doc(
      4,
      4,
      [
        pixel(1, solid(all, RED)),
        pixel(2, solid(all, BLUE), { visible: false }),
        pixel(3, solid(all, BLUE), { opacity: 0.4 }),
      ],
      [1, 2, 3],
    );
    // 0.6·255 = 153 red, 0.4·255 = 102 blue.
    expect(px(renderDocument(state), 0, 0)).toEqual([153, 0, 102, 255]);
  });

  it('ignores empty layers and dangling ids', () => {
    const empty = { x: 0, y: 0, w: 0, h: 0, data: new Uint8ClampedArray(0) };
    const state = doc(4, 4, [pixel(1, solid(all, RED)), pixel(2, empty, { blend: 'multiply' })], [1, 2, 99]);
    expect(px(renderDocument(state), 2, 2)).toEqual(RED);
  });

  it('a fill layer covers exactly the canvas', () => {
    const state = doc(
      4,
      4,
      [fill(1, { r: 10, g: 20, b: 30 }), pixel(2, solid({ x: 3, y: 3, w: 3, h: 3 }, RED))],
      [1, 2],
    );
    const out = renderDocument(state, { x: -2, y: -2, w: 8, h: 8 });
    expect(px(out, 0, 0)).toEqual([10, 20, 30, 255]);
    expect(px(out, -1, 0)).toEqual(CLEAR);
    expect(px(out, 3, 3)).toEqual(RED);
    // The layer reaches past the canvas; a rectangle beyond it shows those pixels, but no fill there.
    expect(px(out, 5, 5)).toEqual(RED);
    expect(px(out, 5, 0)).toEqual(CLEAR);
  });

  it('clips layers that lie partly outside the canvas to the canvas by default', () => {
    const state = doc(4, 4, [pixel(1, solid({ x: -3, y: 2, w: 5, h: 10 }, BLUE))], [1]);
    const out = renderDocument(state);
    expect(out).toMatchObject({ x: 0, y: 0, w: 4, h: 4 });
    expect(px(out, 0, 3)).toEqual(BLUE);
    expect(px(out, 1, 2)).toEqual(BLUE);
    expect(px(out, 2, 2)).toEqual(CLEAR);
    expect(px(out, 0, 1)).toEqual(CLEAR);
    expect(layerBounds(state, 1)).toEqual({ x: 0, y: 2, w: 2, h: 2 });
  });

  it('renders any sub-rectangle exactly as the same pixels of the full render', () => {
    const r = rng(7);
    const noise = (): readonly [number, number, number, number] => [
      Math.floor(r() * 256),
      Math.floor(r() * 256),
      Math.floor(r() * 256),
      Math.floor(r() * 256),
    ];
    const state = doc(
      40,
      30,
      [
        fill(1, { r: 200, g: 180, b: 20 }),
        pixel(2, rasterOf({ x: -5, y: 3, w: 30, h: 20 }, noise), { blend: 'overlay' }),
        pixel(3, rasterOf({ x: 10, y: 0, w: 25, h: 30 }, noise), {
          blend: 'hue',
          mask: maskOf({ x: 12, y: 2, w: 10, h: 10 }, (x, y) => (x * 20 + y * 7) & 255, 255),
        }),
        pixel(4, rasterOf({ x: 5, y: 5, w: 20, h: 20 }, noise), { blend: 'dissolve', opacity: 0.7 }),
        pixel(5, rasterOf({ x: 0, y: 0, w: 40, h: 30 }, noise), { clipped: true, blend: 'soft light' }),
        group(6, [7, 8], { blend: 'multiply', opacity: 0.8 }),
        pixel(7, rasterOf({ x: 20, y: 10, w: 15, h: 15 }, noise)),
        pixel(8, rasterOf({ x: 25, y: 12, w: 15, h: 15 }, noise), { blend: 'color burn' }),
      ],
      [1, 2, 3, 4, 5, 6],
    );
    const full = renderDocument(state);
    for (const rect of [
      { x: 0, y: 0, w: 1, h: 1 },
      { x: 7, y: 3, w: 19, h: 21 },
      { x: 33, y: 29, w: 7, h: 1 },
      { x: 0, y: 10, w: 40, h: 5 },
    ]) {
      expect(maxDiff(renderDocument(state, rect), cropRaster(full, rect))).toBe(0);
    }
  });

  it('gives the same pixels whatever the strip layout (wide canvas: several strips per render)', () => {
    const r = rng(11);
    const noise = (): readonly [number, number, number, number] => [
      Math.floor(r() * 256),
      Math.floor(r() * 256),
      Math.floor(r() * 256),
      Math.floor(r() * 256),
    ];
    const W = 4100;
    const H = 23;
    const state = doc(
      W,
      H,
      [
        fill(1, { r: 90, g: 120, b: 200 }),
        pixel(2, rasterOf({ x: 3000, y: -2, w: 1200, h: 20 }, noise), {
          blend: 'multiply',
          mask: maskOf({ x: 3100, y: 4, w: 900, h: 12 }, (x, y) => (x + 3 * y) & 255, 0),
        }),
        group(3, [4, 5], { opacity: 0.6 }),
        pixel(4, rasterOf({ x: 2900, y: 5, w: 400, h: 18 }, noise), { blend: 'luminosity' }),
        pixel(5, rasterOf({ x: 3050, y: 0, w: 500, h: 23 }, noise), { clipped: true, blend: 'hard light' }),
        group(6, [7], {
          blend: 'normal',
          mask: maskOf({ x: 3200, y: 0, w: 300, h: 23 }, (x) => x & 255, 255),
        }),
        pixel(7, rasterOf({ x: 3150, y: 3, w: 700, h: 15 }, noise), { blend: 'exclusion' }),
      ],
      [1, 2, 3, 6],
    );
    const full = renderDocument(state);
    for (let y = 0; y < H; y++) {
      const row = { x: 2850, y, w: 1250, h: 1 };
      expect(maxDiff(renderDocument(state, row), cropRaster(full, row))).toBe(0);
    }
  });

  it('rejects a fractional rectangle', () => {
    expect(() => renderDocument(doc(4, 4, [], []), { x: 0.5, y: 0, w: 2, h: 2 })).toThrow(/整数/);
  });
});

describe('groups', () => {
  // Backdrop red outside the group; inside, a 50% grey multiply layer.
  const layers = (groupOpts: Parameters<typeof group>[2]) => [
    pixel(1, solid(all, RED)),
    group(2, [3], groupOpts),
    pixel(3, solid(all, GREY), { blend: 'multiply' }),
  ];

  it('pass-through: children blend with what lies under the group', () => {
    expect(px(renderDocument(doc(4, 4, layers({}), [1, 2])), 0, 0)).toEqual([128, 0, 0, 255]);
  });

  it('isolated (normal): children blend only with each other, then the group covers the backdrop', () => {
    // Multiply onto transparency is just the grey; the group then lays grey over red.
    expect(px(renderDocument(doc(4, 4, layers({ blend: 'normal' }), [1, 2])), 0, 0)).toEqual(GREY);
  });

  it('pass-through with opacity mixes the backdrop before and after the group', () => {
    // 0.6·(255, 0, 0) + 0.4·(128, 0, 0) = (204.2, 0, 0).
    expect(px(renderDocument(doc(4, 4, layers({ opacity: 0.4 }), [1, 2])), 0, 0)).toEqual([204, 0, 0, 255]);
  });

  it('isolated with opacity blends the group result once', () => {
    // Grey over red at 0.4: 0.6·255 + 0.4·128 = 204.2; 0.4·128 = 51.2.
    const out = renderDocument(doc(4, 4, layers({ blend: 'normal', opacity: 0.4 }), [1, 2]));
    expect(px(out, 0, 0)).toEqual([204, 51, 51, 255]);
  });

  it("an isolated group's mode applies to its composite", () => {
    const state = doc(
      4,
      4,
      [pixel(1, solid(all, RED)), group(2, [3], { blend: 'multiply' }), pixel(3, solid(all, GREY))],
      [1, 2],
    );
    expect(px(renderDocument(state), 0, 0)).toEqual([128, 0, 0, 255]);
  });

  it('a hidden group hides its children; nested groups compose', () => {
    const state = doc(
      4,
      4,
      [
        pixel(1, solid(all, RED)),
        group(2, [3], { visible: false }),
        pixel(3, solid(all, BLUE)),
        group(4, [5], { blend: 'normal', opacity: 0.5 }),
        group(5, [6], { opacity: 0.5 }),
        pixel(6, solid(all, BLUE)),
      ],
      [1, 2, 4],
    );
    // Inner pass-through at 0.5 over the isolated group's transparent start: blue at alpha 0.5;
    // the outer group at 0.5 puts that over red at 0.25.
    const p = px(renderDocument(state), 0, 0);
    expect(p[3]).toBe(255);
    expect(Math.abs(p[0] - 191)).toBeLessThanOrEqual(1);
    expect(Math.abs(p[2] - 64)).toBeLessThanOrEqual(1);
  });

  it("a group mask applies to the group's result", () => {
    const mask = maskOf({ x: 0, y: 0, w: 2, h: 4 }, () => 255, 0);
    for (const blend of ['pass through', 'normal'] as const) {
      const state = doc(
        4,
        4,
        [pixel(1, solid(all, RED)), group(2, [3], { blend, mask }), pixel(3, solid(all, BLUE))],
        [1, 2],
      );
      const out = renderDocument(state);
      expect(px(out, 1, 1)).toEqual(BLUE);
      expect(px(out, 2, 1)).toEqual(RED);
    }
  });
});

describe('masks', () => {
  const m = (outside: 0 | 255, enabled = true) =>
    maskOf({ x: 1, y: 1, w: 2, h: 2 }, (x) => (x === 1 ? 255 : 51), outside, enabled);

  it('multiply the layer alpha, with the outside value beyond the mask', () => {
    const hideOutside = renderDocument(doc(4, 4, [pixel(1, solid(all, RED), { mask: m(0) })], [1]));
    expect(px(hideOutside, 1, 1)).toEqual(RED);
    expect(px(hideOutside, 2, 1)).toEqual([255, 0, 0, 51]);
    expect(px(hideOutside, 0, 0)).toEqual(CLEAR);
    const revealOutside = renderDocument(doc(4, 4, [pixel(1, solid(all, RED), { mask: m(255) })], [1]));
    expect(px(revealOutside, 0, 0)).toEqual(RED);
    expect(px(revealOutside, 2, 2)).toEqual([255, 0, 0, 51]);
  });

  it('a disabled mask does nothing', () => {
    const out = renderDocument(doc(4, 4, [pixel(1, solid(all, RED), { mask: m(0, false) })], [1]));
    expect(px(out, 0, 0)).toEqual(RED);
    expect(px(out, 2, 2)).toEqual(RED);
  });

  it('combine with opacity', () => {
    const out = renderDocument(doc(4, 4, [pixel(1, solid(all, RED), { mask: m(0), opacity: 0.5 })], [1]));
    // 51/255 · 0.5 · 255 = 25.5 → rounds to even, 26 (25.5 is not exact in float: it lands a hair above).
    expect(Math.abs(px(out, 2, 2)[3] - 25.5)).toBeLessThanOrEqual(0.5);
  });
});

describe('clipping groups', () => {
  const square = { x: 1, y: 1, w: 2, h: 2 };

  it('a clipped layer shows only where its base has pixels', () => {
    const state = doc(
      4,
      4,
      [pixel(1, solid(square, RED)), pixel(2, solid(all, BLUE), { clipped: true })],
      [1, 2],
    );
    const out = renderDocument(state);
    expect(px(out, 1, 1)).toEqual(BLUE);
    expect(px(out, 0, 0)).toEqual(CLEAR);
    expect(px(out, 3, 3)).toEqual(CLEAR);
  });

  it('the clipping group keeps the base alpha', () => {
    const state = doc(
      4,
      4,
      [pixel(1, solid(square, [255, 0, 0, 102])), pixel(2, solid(all, BLUE), { clipped: true })],
      [1, 2],
    );
    expect(px(renderDocument(state), 1, 1)).toEqual([0, 0, 255, 102]);
  });

  it('a hidden base hides its clipped layers, and the next unclipped layer starts a new stack', () => {
    const state = doc(
      4,
      4,
      [
        pixel(1, solid(all, GREY)),
        pixel(2, solid(square, RED), { visible: false }),
        pixel(3, solid(all, BLUE), { clipped: true }),
        pixel(4, solid({ x: 0, y: 0, w: 1, h: 1 }, RED)),
        pixel(5, solid(all, BLUE), { clipped: true }),
      ],
      [1, 2, 3, 4, 5],
    );
    const out = renderDocument(state);
    expect(px(out, 1, 1)).toEqual(GREY);
    expect(px(out, 0, 0)).toEqual(BLUE);
  });

  it("clipped layers blend with the base's colours, and the base's opacity and mode apply to the stack", () => {
    const state = doc(
      4,
      4,
      [
        pixel(1, solid(all, BLUE)),
        pixel(2, solid(all, RED), { opacity: 0.5 }),
        pixel(3, solid(all, GREY), { clipped: true, blend: 'multiply' }),
      ],
      [1, 2, 3],
    );
    // Stack: red · grey = (128, 0, 0); at 50% over blue: (64, 0, 127.5).
    const p = px(renderDocument(state), 0, 0);
    expect(p[0]).toBe(64);
    expect(p[1]).toBe(0);
    expect(Math.abs(p[2] - 127.5)).toBeLessThanOrEqual(0.5);
    expect(p[3]).toBe(255);
  });

  it("a clipped layer at the bottom of its stack is drawn plainly; hidden clipped layers don't break a stack", () => {
    const state = doc(
      4,
      4,
      [
        pixel(1, solid(square, RED), { clipped: true }),
        pixel(2, solid(all, BLUE), { clipped: true, visible: false }),
        pixel(3, solid(all, GREY), { clipped: true }),
      ],
      [1, 2, 3],
    );
    const out = renderDocument(state);
    expect(px(out, 1, 1)).toEqual(GREY);
    expect(px(out, 0, 0)).toEqual(CLEAR);
  });

  it('a group can be a base and can be clipped', () => {
    const state = doc(
      4,
      4,
      [
        group(1, [2]),
        pixel(2, solid(square, RED)),
        group(3, [4], { clipped: true }),
        pixel(4, solid(all, BLUE), { blend: 'normal' }),
      ],
      [1, 3],
    );
    const out = renderDocument(state);
    expect(px(out, 2, 2)).toEqual(BLUE);
    expect(px(out, 0, 0)).toEqual(CLEAR);
  });

  it("a clipped layer's mask and opacity apply within the stack", () => {
    const state = doc(
      4,
      4,
      [
        pixel(1, solid(all, RED)),
        pixel(2, solid(all, BLUE), { clipped: true, opacity: 0.4, mask: maskOf(square, () => 255, 0) }),
      ],
      [1, 2],
    );
    const out = renderDocument(state);
    expect(px(out, 0, 0)).toEqual(RED);
    expect(px(out, 1, 1)).toEqual([153, 0, 102, 255]);
  });
});

describe('layerBounds', () => {
  it('is the fill canvas, the union of group children, cut by a hiding mask, on the canvas', () => {
    const state = doc(
      10,
      10,
      [
        fill(1, { r: 0, g: 0, b: 0 }),
        group(2, [3, 4]),
        pixel(3, solid({ x: 1, y: 1, w: 2, h: 2 }, RED)),
        pixel(4, solid({ x: 5, y: 6, w: 9, h: 2 }, RED), { visible: false }),
        pixel(5, solid({ x: 0, y: 0, w: 8, h: 8 }, RED), {
          mask: maskOf({ x: 2, y: 3, w: 2, h: 2 }, () => 9, 0),
        }),
      ],
      [1, 2, 5],
    );
    expect(layerBounds(state, 1)).toEqual({ x: 0, y: 0, w: 10, h: 10 });
    expect(layerBounds(state, 2)).toEqual({ x: 1, y: 1, w: 9, h: 7 });
    expect(layerBounds(state, 5)).toEqual({ x: 2, y: 3, w: 2, h: 2 });
    expect(() => layerBounds(state, 42)).toThrow();
  });
});
