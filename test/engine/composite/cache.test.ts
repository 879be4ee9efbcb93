import { describe, expect, it } from 'vitest';
import { CompositeCache, dirtyRect } from '../../../src/engine/composite/cache.js';
import { renderDocument } from '../../../src/engine/composite/compositor.js';
import type { DocState } from '../../../src/engine/model.js';
import { rng } from '../../support/rng.js';
import { doc, fill, group, maxDiff, pixel, rasterOf, solid, withLayer } from './support.js';

function noise(seed: number) {
  const r = rng(seed);
  return (): readonly [number, number, number, number] => [
    Math.floor(r() * 256),
    Math.floor(r() * 256),
    Math.floor(r() * 256),
    Math.floor(r() * 256),
  ];
}

function scene(): DocState {
  return doc(
    120,
    80,
    [
      fill(1, { r: 240, g: 240, b: 230 }),
      pixel(2, rasterOf({ x: -10, y: 0, w: 90, h: 60 }, noise(1)), { blend: 'multiply' }),
      pixel(3, rasterOf({ x: 50, y: 20, w: 60, h: 50 }, noise(2)), { blend: 'color' }),
      pixel(4, rasterOf({ x: 0, y: 0, w: 120, h: 80 }, noise(3)), { clipped: true, blend: 'overlay' }),
      group(5, [6, 7], { blend: 'screen', opacity: 0.7 }),
      pixel(6, rasterOf({ x: 10, y: 40, w: 30, h: 30 }, noise(4))),
      pixel(7, rasterOf({ x: 30, y: 50, w: 20, h: 20 }, noise(5)), { blend: 'difference' }),
      pixel(8, rasterOf({ x: 90, y: 5, w: 8, h: 6 }, noise(6)), { blend: 'soft light' }),
    ],
    [1, 2, 3, 4, 5, 8],
  );
}

describe('CompositeCache', () => {
  it('re-renders only the dirty rectangle after a small layer changes, matching a full render exactly', () => {
    const cache = new CompositeCache();
    const s0 = scene();
    const first = cache.render(s0);
    expect(maxDiff(first, renderDocument(s0))).toBe(0);
    expect(cache.stats).toMatchObject({ renders: 1, fullRenders: 1 });

    // Move the small layer 8 by a few pixels.
    const s1 = withLayer(
      s0,
      pixel(8, rasterOf({ x: 95, y: 8, w: 8, h: 6 }, noise(6)), { blend: 'soft light' }),
    );
    const firstCopy = first.data.slice();
    const second = cache.render(s1);
    expect(cache.stats.lastDirty).toEqual({ x: 90, y: 5, w: 13, h: 9 });
    expect(cache.stats).toMatchObject({ renders: 2, fullRenders: 1 });
    expect(maxDiff(second, renderDocument(s1))).toBe(0);
    // Copy-on-write: the earlier result is untouched.
    expect(second.data).not.toBe(first.data);
    expect(first.data).toEqual(firstCopy);
  });

  it('dirties a group with all its children, and what clips to a changed base', () => {
    const cache = new CompositeCache();
    const s0 = scene();
    cache.render(s0);
    const s1 = withLayer(s0, { ...s0.layers.get(5)!, opacity: 0.3 });
    expect(maxDiff(cache.render(s1), renderDocument(s1))).toBe(0);
    expect(cache.stats.lastDirty).toEqual({ x: 10, y: 40, w: 40, h: 30 });

    // Layer 3 is the base of 4: hiding it changes everything 4 showed through it.
    const s2 = withLayer(s1, { ...s1.layers.get(3)!, visible: false });
    expect(maxDiff(cache.render(s2), renderDocument(s2))).toBe(0);
    expect(cache.stats.lastDirty).toEqual({ x: 0, y: 0, w: 120, h: 80 });
  });

  it('unclipping a layer re-targets the clipped layers above it', () => {
    const s0 = doc(
      20,
      20,
      [
        pixel(1, solid({ x: 0, y: 0, w: 20, h: 20 }, [255, 0, 0, 255])),
        pixel(2, solid({ x: 0, y: 0, w: 2, h: 2 }, [0, 255, 0, 255]), { clipped: true }),
        pixel(3, solid({ x: 0, y: 0, w: 20, h: 20 }, [0, 0, 255, 255]), { clipped: true }),
      ],
      [1, 2, 3],
    );
    const cache = new CompositeCache();
    cache.render(s0);
    const s1 = withLayer(s0, { ...s0.layers.get(2)!, clipped: false });
    expect(maxDiff(cache.render(s1), renderDocument(s1))).toBe(0);
  });

  it("covers a layer's effects when it moves", () => {
    const shadowed = (x: number) => ({
      ...pixel(9, solid({ x, y: 30, w: 10, h: 10 }, [20, 200, 20, 255])),
      effects: {
        dropShadow: {
          distance: 8,
          angle: 120,
          size: 6,
          spread: 10,
          opacity: 0.8,
          color: { r: 0, g: 0, b: 0 },
          blend: 'multiply' as const,
        },
        stroke: {
          size: 2,
          position: 'outside' as const,
          color: { r: 0, g: 0, b: 255 },
          opacity: 1,
          blend: 'normal' as const,
        },
      },
    });
    const s0: DocState = { ...withLayer(scene(), shadowed(60)), root: [1, 2, 3, 4, 5, 8, 9] };
    const cache = new CompositeCache();
    cache.render(s0);
    const s1 = withLayer(s0, shadowed(70));
    expect(maxDiff(cache.render(s1), renderDocument(s1))).toBe(0);
    expect(cache.stats.fullRenders).toBe(1);
  });

  it('handles added, removed and reordered layers', () => {
    const cache = new CompositeCache();
    const s0 = scene();
    cache.render(s0);
    const added = pixel(9, solid({ x: 5, y: 5, w: 4, h: 4 }, [0, 0, 0, 255]));
    const s1: DocState = { ...withLayer(s0, added), root: [...s0.root, 9] };
    expect(maxDiff(cache.render(s1), renderDocument(s1))).toBe(0);
    expect(cache.stats.lastDirty).toEqual({ x: 5, y: 5, w: 4, h: 4 });

    const layers = new Map(s1.layers);
    layers.delete(8);
    const s2: DocState = { ...s1, layers, root: [1, 2, 3, 4, 5, 9] };
    expect(maxDiff(cache.render(s2), renderDocument(s2))).toBe(0);

    const s3: DocState = { ...s2, root: [1, 3, 4, 2, 5, 9] };
    expect(maxDiff(cache.render(s3), renderDocument(s3))).toBe(0);
  });

  it('returns the previous composite when nothing visible changed, and renders all on a fill or canvas change', () => {
    const cache = new CompositeCache();
    const s0 = scene();
    const a = cache.render(s0);
    expect(cache.render({ ...s0, active: 3 })).toBe(a);
    expect(cache.stats.renders).toBe(1);

    const s1 = withLayer(s0, fill(1, { r: 0, g: 0, b: 0 }));
    expect(dirtyRect(s0, s1)).toBe('all');
    expect(maxDiff(cache.render(s1), renderDocument(s1))).toBe(0);
    expect(cache.stats.fullRenders).toBe(2);

    const s2: DocState = { ...s1, width: 100 };
    const out = cache.render(s2);
    expect(out.w).toBe(100);
    expect(maxDiff(out, renderDocument(s2))).toBe(0);
    expect(cache.stats.fullRenders).toBe(3);
  });
});

describe('CompositeCache.peek', () => {
  const moved = (s: DocState) =>
    withLayer(s, pixel(8, rasterOf({ x: 95, y: 10, w: 8, h: 6 }, noise(6)), { blend: 'soft light' }));

  it('updates a lent composite in place, still matching a full render', () => {
    const cache = new CompositeCache();
    const s0 = scene();
    const lent = cache.peek(s0);
    const s1 = moved(s0);
    const next = cache.peek(s1);
    expect(next.data).toBe(lent.data);
    expect(maxDiff(next, renderDocument(s1))).toBe(0);
  });

  it('never writes a composite that render handed out', () => {
    const cache = new CompositeCache();
    const s0 = scene();
    const kept = cache.render(s0);
    const copy = kept.data.slice();
    const s1 = moved(s0);
    const lent = cache.peek(s1);
    expect(lent.data).not.toBe(kept.data);
    expect(kept.data).toEqual(copy);
    expect(maxDiff(lent, renderDocument(s1))).toBe(0);
    // The copy made for s1 was only lent, so the next change may reuse it.
    const s2 = withLayer(
      s1,
      pixel(8, rasterOf({ x: 99, y: 12, w: 8, h: 6 }, noise(6)), { blend: 'soft light' }),
    );
    expect(cache.peek(s2).data).toBe(lent.data);
    expect(maxDiff(cache.peek(s2), renderDocument(s2))).toBe(0);
  });
});
