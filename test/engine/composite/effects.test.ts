import { describe, expect, it } from 'vitest';
import { contentExtent, layerBounds, layerExtent } from '../../../src/engine/composite/bounds.js';
import { renderDocument } from '../../../src/engine/composite/compositor.js';
import { effectPaints, groupEffectPaints, knownEffects } from '../../../src/engine/composite/effects.js';
import type { Effects, PixelLayer } from '../../../src/engine/model.js';
import { intersectRect } from '../../../src/engine/raster.js';
import { doc, fill, group, pixel, px, solid, withLayer } from './support.js';

const RED = [255, 0, 0, 255] as const;
const BLACK = [0, 0, 0, 255] as const;
const WHITE = [255, 255, 255, 255] as const;
const black = { r: 0, g: 0, b: 0 };

function withEffects(layer: PixelLayer, effects: Effects): PixelLayer {
  return { ...layer, effects };
}

describe('stroke', () => {
  it('outside: a band of the given width around the shape, with round corners', () => {
    const layer = withEffects(pixel(2, solid({ x: 5, y: 5, w: 4, h: 4 }, RED)), {
      stroke: { size: 2, position: 'outside', color: black, opacity: 1, blend: 'normal' },
    });
    const out = renderDocument(doc(14, 14, [fill(1, { r: 255, g: 255, b: 255 }), layer], [1, 2]));
    expect(px(out, 5, 5)).toEqual(RED);
    expect(px(out, 4, 6)).toEqual(BLACK);
    expect(px(out, 3, 6)).toEqual(BLACK);
    expect(px(out, 2, 6)).toEqual(WHITE);
    // Corner pixel (3, 3) is √8 ≈ 2.83 from (5, 5): covered 0.17.
    const corner = px(out, 3, 3);
    expect(corner[0]).toBeGreaterThan(200);
    expect(corner[0]).toBeLessThan(225);
  });

  it('inside: the band lies within the shape, above its pixels', () => {
    const layer = withEffects(pixel(1, solid({ x: 3, y: 3, w: 8, h: 8 }, RED)), {
      stroke: { size: 2, position: 'inside', color: black, opacity: 1, blend: 'normal' },
    });
    const out = renderDocument(doc(14, 14, [layer], [1]));
    expect(px(out, 3, 6)).toEqual(BLACK);
    expect(px(out, 4, 6)).toEqual(BLACK);
    expect(px(out, 6, 6)).toEqual(RED);
    expect(px(out, 2, 6)).toEqual([0, 0, 0, 0]);
  });

  it("fades with the layer's opacity", () => {
    const layer = withEffects(pixel(2, solid({ x: 5, y: 5, w: 4, h: 4 }, RED), { opacity: 0.4 }), {
      stroke: { size: 1, position: 'outside', color: black, opacity: 1, blend: 'normal' },
    });
    const out = renderDocument(doc(14, 14, [fill(1, { r: 255, g: 255, b: 255 }), layer], [1, 2]));
    expect(px(out, 4, 6)).toEqual([153, 153, 153, 255]);
  });
});

describe('drop shadow', () => {
  it('lies below the layer, offset along the light angle, knocked out under the layer', () => {
    const layer = withEffects(pixel(2, solid({ x: 2, y: 2, w: 4, h: 4 }, RED)), {
      dropShadow: { distance: 3, angle: 90, size: 0, spread: 0, opacity: 1, color: black, blend: 'multiply' },
    });
    const out = renderDocument(doc(10, 10, [fill(1, { r: 255, g: 255, b: 255 }), layer], [1, 2]));
    expect(px(out, 3, 4)).toEqual(RED);
    expect(px(out, 3, 7)).toEqual(BLACK);
    expect(px(out, 3, 8)).toEqual(BLACK);
    expect(px(out, 3, 9)).toEqual(WHITE);
    expect(px(out, 7, 7)).toEqual(WHITE);
  });

  it('120° casts down and to the right; size blurs it', () => {
    const layer = withEffects(pixel(2, solid({ x: 10, y: 10, w: 10, h: 10 }, RED)), {
      dropShadow: {
        distance: 6,
        angle: 120,
        size: 6,
        spread: 0,
        opacity: 0.75,
        color: black,
        blend: 'multiply',
      },
    });
    const state = doc(40, 40, [fill(1, { r: 255, g: 255, b: 255 }), layer], [1, 2]);
    const out = renderDocument(state);
    // Offset (3, 5): deep inside the shadow, right of and below the square.
    const inside = px(out, 21, 20);
    expect(inside[0]).toBeLessThan(140);
    // Above-left of the square: no shadow.
    expect(px(out, 8, 8)).toEqual(WHITE);
    // Soft edge: somewhere between.
    const edge = px(out, 16, 28);
    expect(edge[0]).toBeGreaterThan(100);
    expect(edge[0]).toBeLessThan(255);
    expect(layerBounds(state, 2).x + layerBounds(state, 2).w).toBeGreaterThan(20 + 3);
  });
});

describe('effect footprint', () => {
  it('every effect raster lies inside the extent used for dirty rectangles', () => {
    const layer = withEffects(pixel(1, solid({ x: 7, y: 9, w: 13, h: 5 }, RED)), {
      stroke: { size: 3.5, position: 'center', color: black, opacity: 1, blend: 'normal' },
      dropShadow: {
        distance: 11,
        angle: 200,
        size: 9,
        spread: 30,
        opacity: 1,
        color: black,
        blend: 'multiply',
      },
    });
    const state = doc(50, 50, [layer], [1]);
    const extent = layerExtent(state, layer);
    expect(extent).not.toEqual(contentExtent(state, layer));
    const paints = effectPaints(layer, state);
    expect(paints.below).toHaveLength(1);
    expect(paints.above).toHaveLength(1);
    for (const p of [...paints.below, ...paints.above]) {
      expect(intersectRect(p.raster, extent)).toEqual({
        x: p.raster.x,
        y: p.raster.y,
        w: p.raster.w,
        h: p.raster.h,
      });
    }
    expect(effectPaints(layer, state)).toBe(paints);
  });
});

describe('group effects', () => {
  const stroke: Effects = {
    stroke: { size: 2, position: 'outside', color: black, opacity: 1, blend: 'normal' },
  };

  it('are made from the group composite once, and again only when a layer inside changes', () => {
    const g = { ...group(3, [2]), effects: stroke };
    const state = doc(
      30,
      30,
      [fill(1, { r: 255, g: 255, b: 255 }), pixel(2, solid({ x: 5, y: 5, w: 6, h: 6 }, RED)), g],
      [1, 3],
    );
    const out = renderDocument(state);
    expect(px(out, 3, 7)).toEqual(BLACK);
    const paints = knownEffects(g)!;
    expect(paints.above).toHaveLength(1);
    let renders = 0;
    const count = () => {
      renders++;
      return solid({ x: 0, y: 0, w: 1, h: 1 }, RED);
    };
    expect(groupEffectPaints(state, g, count)).toBe(paints);
    expect(renders).toBe(0);
    // The same group object over a moved child: its outline changed, so the effects are made again.
    const moved = withLayer(state, pixel(2, solid({ x: 15, y: 5, w: 6, h: 6 }, RED)));
    const after = renderDocument(moved);
    expect(knownEffects(g)).not.toBe(paints);
    expect(px(after, 13, 7)).toEqual(BLACK);
    expect(px(after, 3, 7)).toEqual(WHITE);
  });

  it('reach past the group content in its footprint, so dirty rectangles cover them', () => {
    const g = {
      ...group(3, [2]),
      effects: {
        dropShadow: {
          distance: 9,
          angle: 90,
          size: 3,
          spread: 0,
          opacity: 1,
          color: black,
          blend: 'multiply',
        },
      },
    } as const;
    const state = doc(40, 40, [pixel(2, solid({ x: 5, y: 5, w: 6, h: 6 }, RED)), g], [3]);
    const extent = layerExtent(state, g);
    expect(extent.y + extent.h).toBeGreaterThanOrEqual(5 + 6 + 9);
    const out = renderDocument(state);
    expect(px(out, 8, 18)[3]).toBeGreaterThan(100);
  });
});
