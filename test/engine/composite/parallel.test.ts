/**
 * The compositor's worker: a render shared with it must be byte for byte the render of one thread, for every
 * construct the compositor knows; renders it cannot share (buffers outside shared memory) still come out right.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compositeBudget,
  reclaimCompositeBudget,
  sharedCompositeBudget,
} from '../../../src/engine/composite/budget.js';
import { CompositeCache } from '../../../src/engine/composite/cache.js';
import { renderDocument, renderInto } from '../../../src/engine/composite/compositor.js';
import {
  type ParallelMode,
  parallelReady,
  parallelStats,
  poolWorkers,
  setParallelMode,
  setPoolIdleMs,
} from '../../../src/engine/composite/parallel.js';
import { decodeImage } from '../../../src/engine/io/image-codec.js';
import type {
  BlendMode,
  DocState,
  Effects,
  Layer,
  LayerMask,
  Raster,
  Rect,
} from '../../../src/engine/model.js';
import { allocPixels, copyPixels, isSharedBuffer, shareMask } from '../../../src/engine/raster.js';
import { alphaMask, featherMask, invertMask, rectMask } from '../../../src/engine/selection.js';
import { renderText } from '../../../src/engine/text.js';
import { flipRaster, rotateRaster, scaleRaster } from '../../../src/engine/transform.js';
import { rng } from '../../support/rng.js';
import { doc, fill, group, maskOf, pixel, rasterOf, withLayer } from './support.js';

// A worker even on a one-core machine, so the shared path is always exercised.
process.env.ATELIER_COMPOSITE_WORKERS ??= '1';

const MODES: BlendMode[] = [
  'normal',
  'dissolve',
  'darken',
  'multiply',
  'color burn',
  'linear burn',
  'darker color',
  'lighten',
  'screen',
  'color dodge',
  'linear dodge',
  'lighter color',
  'overlay',
  'soft light',
  'hard light',
  'vivid light',
  'linear light',
  'pin light',
  'hard mix',
  'difference',
  'exclusion',
  'subtract',
  'divide',
  'hue',
  'saturation',
  'color',
  'luminosity',
];

/** A raster of random colours and alphas (a few fully transparent and fully opaque), in shared memory. */
function noisy(r: Rect, seed: number): Raster {
  const rand = rng(seed);
  const raw = rasterOf(r, () => {
    const a = rand();
    const alpha = a < 0.1 ? 0 : a > 0.85 ? 255 : Math.floor(rand() * 256);
    return [Math.floor(rand() * 256), Math.floor(rand() * 256), Math.floor(rand() * 256), alpha];
  });
  return { ...raw, data: copyPixels(raw.data) };
}

function sharedMask(m: LayerMask): LayerMask {
  return { ...m, data: shareMask(m.data) };
}

function ramp(r: Rect, outside: 0 | 255 = 0, enabled = true): LayerMask {
  return sharedMask(maskOf(r, (x, y) => (x * 7 + y * 3) % 256, outside, enabled));
}

const W = 160;
const H = 120;

/** Every blend mode, each over the one before, with various opacities. */
function allModes(): DocState {
  const layers: Layer[] = [fill(1, { r: 40, g: 90, b: 200 })];
  MODES.forEach((blend, i) => {
    const r = { x: ((i * 7) % 50) - 20, y: ((i * 11) % 40) - 15, w: 120, h: 100 };
    layers.push(pixel(i + 2, noisy(r, i + 1), { blend, opacity: 0.35 + ((i * 13) % 7) / 10 }));
  });
  return doc(
    W,
    H,
    layers,
    layers.map((l) => l.id),
  );
}

/** Isolated and pass-through groups, nested, with opacity and masks. */
function groups(): DocState {
  const layers: Layer[] = [
    pixel(1, noisy({ x: 0, y: 0, w: W, h: H }, 11)),
    pixel(2, noisy({ x: 10, y: 5, w: 90, h: 80 }, 12), { blend: 'multiply' }),
    pixel(3, noisy({ x: 50, y: 30, w: 100, h: 80 }, 13), { blend: 'screen', opacity: 0.7 }),
    group(4, [2, 3], { blend: 'overlay', opacity: 0.8, mask: ramp({ x: 20, y: 10, w: 100, h: 90 }) }),
    pixel(5, noisy({ x: -10, y: 40, w: 120, h: 60 }, 14), { blend: 'color' }),
    pixel(6, noisy({ x: 60, y: -5, w: 90, h: 90 }, 15), { blend: 'difference', opacity: 0.6 }),
    group(7, [5, 6], { opacity: 0.5, mask: ramp({ x: 0, y: 0, w: 140, h: 100 }, 255) }),
    pixel(8, noisy({ x: 30, y: 20, w: 80, h: 80 }, 16), { blend: 'dissolve', opacity: 0.6 }),
    group(9, [7, 8], { blend: 'normal', opacity: 0.9 }),
  ];
  return doc(W, H, layers, [1, 4, 9]);
}

/** Clipping groups on a pixel base, on a group base, with masks and modes on the clipped layers. */
function clipping(): DocState {
  const layers: Layer[] = [
    fill(1, { r: 230, g: 220, b: 200 }),
    pixel(2, noisy({ x: 20, y: 10, w: 100, h: 90 }, 21), { opacity: 0.7, blend: 'multiply' }),
    pixel(3, noisy({ x: 0, y: 0, w: W, h: H }, 22), { clipped: true, blend: 'screen' }),
    pixel(4, noisy({ x: 40, y: 40, w: 90, h: 70 }, 23), {
      clipped: true,
      blend: 'hue',
      mask: ramp({ x: 30, y: 30, w: 100, h: 80 }),
    }),
    pixel(5, noisy({ x: 70, y: 5, w: 80, h: 60 }, 24)),
    pixel(6, noisy({ x: 60, y: 30, w: 90, h: 80 }, 25), { blend: 'soft light' }),
    group(7, [5, 6], { opacity: 0.8 }),
    pixel(8, noisy({ x: 0, y: 50, w: W, h: 60 }, 26), { clipped: true, blend: 'linear light', opacity: 0.6 }),
  ];
  return doc(W, H, layers, [1, 2, 3, 4, 7, 8]);
}

/** Layer masks: hide and reveal outside, disabled, beyond the canvas. */
function masks(): DocState {
  const layers: Layer[] = [
    pixel(1, noisy({ x: 0, y: 0, w: W, h: H }, 31), { mask: ramp({ x: 10, y: 10, w: 60, h: 50 }) }),
    pixel(2, noisy({ x: 20, y: 20, w: 130, h: 90 }, 32), {
      blend: 'overlay',
      mask: ramp({ x: 40, y: -20, w: 150, h: 90 }, 255),
    }),
    pixel(3, noisy({ x: -30, y: 60, w: 200, h: 80 }, 33), {
      blend: 'luminosity',
      mask: ramp({ x: 0, y: 0, w: 50, h: 50 }, 0, false),
    }),
  ];
  return doc(W, H, layers, [1, 2, 3]);
}

/** Strokes and drop shadows, also on clipped layers, in groups and on a group. */
function effects(): DocState {
  const black = { r: 0, g: 0, b: 0 };
  const fx: Effects = {
    stroke: { size: 3, position: 'outside', color: { r: 250, g: 30, b: 30 }, opacity: 0.9, blend: 'normal' },
    dropShadow: {
      distance: 6,
      angle: 120,
      size: 5,
      spread: 10,
      opacity: 0.7,
      color: black,
      blend: 'multiply',
    },
  };
  const blob = (r: Rect, seed: number): Raster => {
    const rand = rng(seed);
    const cx = r.x + r.w / 2;
    const cy = r.y + r.h / 2;
    const raw = rasterOf(r, (x, y) => {
      const d = Math.hypot((x - cx) / (r.w / 2), (y - cy) / (r.h / 2));
      const a = d < 0.8 ? 255 : d < 1 ? Math.round((1 - d) * 5 * 255) : 0;
      return [Math.floor(rand() * 256), 120, 60, a];
    });
    return { ...raw, data: copyPixels(raw.data) };
  };
  const layers: Layer[] = [
    fill(1, { r: 255, g: 255, b: 255 }),
    { ...pixel(2, blob({ x: 20, y: 15, w: 70, h: 60 }, 41)), effects: fx },
    {
      ...pixel(3, blob({ x: 60, y: 40, w: 80, h: 70 }, 42), { blend: 'multiply', opacity: 0.8 }),
      effects: { stroke: { ...fx.stroke!, position: 'center', size: 4.5, blend: 'screen' } },
    },
    { ...pixel(4, noisy({ x: 0, y: 0, w: W, h: H }, 43), { clipped: true, opacity: 0.5 }), effects: fx },
    { ...pixel(5, blob({ x: 5, y: 60, w: 60, h: 50 }, 44)), effects: { dropShadow: fx.dropShadow! } },
    group(6, [5], { blend: 'hard light' }),
    // A styled group: its effects come from its composite, which the main thread renders and hands over.
    { ...group(8, [7]), effects: fx },
    pixel(7, blob({ x: 90, y: 10, w: 50, h: 40 }, 45)),
  ];
  return doc(W, H, layers, [1, 2, 3, 4, 6, 8]);
}

const DOCS: [string, () => DocState][] = [
  ['every blend mode', allModes],
  ['groups', groups],
  ['clipping', clipping],
  ['masks', masks],
  ['effects', effects],
];

function render(m: ParallelMode, state: DocState, rect?: Rect): Raster {
  setParallelMode(m);
  try {
    return renderDocument(state, rect);
  } finally {
    setParallelMode('auto');
  }
}

function sameBytes(a: Raster, b: Raster): boolean {
  return Buffer.compare(Buffer.from(a.data.buffer), Buffer.from(b.data.buffer)) === 0;
}

let workers = 0;
beforeAll(async () => {
  workers = await parallelReady();
});
afterAll(() => setParallelMode('auto'));

describe('parallel compositing', () => {
  it('has a worker to share renders with', () => {
    expect(workers).toBeGreaterThan(0);
  });

  for (const [name, make] of DOCS) {
    it(`${name}: the worker's render is byte-identical to one thread's`, () => {
      const state = make();
      const one = render('off', state);
      const before = parallelStats();
      const shared = render('workers', state);
      const after = parallelStats();
      expect(after.jobs).toBe(before.jobs + 1);
      expect(after.workerStrips).toBeGreaterThan(before.workerStrips);
      expect(isSharedBuffer(shared.data)).toBe(true);
      expect(sameBytes(one, shared)).toBe(true);
      // And a rectangle reaching past the canvas, rendered at an offset.
      const rect = { x: -17, y: 9, w: 131, h: 140 };
      expect(sameBytes(render('off', state, rect), render('workers', state, rect))).toBe(true);
    });
  }

  it('splits a large render between both threads, identical to one thread', () => {
    // 1200 × 1000: big enough for the automatic mode; both threads take strips from one counter.
    const big = { x: 0, y: 0, w: 1200, h: 1000 };
    const state = doc(
      big.w,
      big.h,
      [
        pixel(1, noisy(big, 51)),
        pixel(2, noisy({ x: 100, y: 50, w: 1000, h: 900 }, 52), { blend: 'soft light', opacity: 0.8 }),
        pixel(3, noisy({ x: -50, y: 200, w: 1300, h: 600 }, 53), { blend: 'dissolve', opacity: 0.7 }),
        pixel(4, noisy(big, 54), { blend: 'color', mask: ramp({ x: 200, y: 100, w: 700, h: 800 }) }),
      ],
      [1, 2, 3, 4],
    );
    const one = render('off', state);
    const before = parallelStats();
    const auto = render('auto', state);
    const after = parallelStats();
    expect(after.jobs).toBe(before.jobs + 1);
    expect(after.workerStrips + after.mainStrips - before.workerStrips - before.mainStrips).toBe(
      Math.ceil(1000 / Math.floor((32 * 1024) / 1200)),
    );
    expect(sameBytes(one, auto)).toBe(true);
  });

  it('the composite cache re-renders a dirty rectangle through the worker, identical to a full render', () => {
    const state = groups();
    const cache = new CompositeCache();
    setParallelMode('workers');
    try {
      const first = cache.render(state);
      expect(isSharedBuffer(first.data)).toBe(true);
      const moved = withLayer(
        state,
        pixel(8, noisy({ x: 40, y: 30, w: 60, h: 50 }, 99), { blend: 'dissolve' }),
      );
      const before = parallelStats();
      const second = cache.render(moved);
      expect(parallelStats().jobs).toBe(before.jobs + 1);
      expect(isSharedBuffer(second.data)).toBe(true);
      expect(sameBytes(second, render('off', moved))).toBe(true);
    } finally {
      setParallelMode('auto');
    }
  });

  it('renders on one thread, correctly, when a layer buffer is not shared', () => {
    const state = allModes();
    const layer = state.layers.get(5) as Layer & { kind: 'pixel' };
    const plain = withLayer(state, {
      ...layer,
      raster: { ...layer.raster, data: layer.raster.data.slice() },
    });
    expect(isSharedBuffer((plain.layers.get(5) as typeof layer).raster.data)).toBe(false);
    const before = parallelStats();
    const out = render('workers', plain);
    expect(parallelStats().jobs).toBe(before.jobs);
    expect(sameBytes(out, render('off', state))).toBe(true);
  });

  it('renders on one thread when a mask or the output buffer is not shared', () => {
    const state = masks();
    const layer = state.layers.get(2) as Layer & { kind: 'pixel' };
    const plainMask = withLayer(state, {
      ...layer,
      mask: { ...layer.mask!, data: layer.mask!.data.slice() },
    });
    const before = parallelStats();
    expect(sameBytes(render('workers', plainMask), render('off', state))).toBe(true);

    const rect = { x: 0, y: 0, w: W, h: H };
    const out = new Uint8ClampedArray(W * H * 4);
    setParallelMode('workers');
    try {
      renderInto(state, rect, out, W, 0, 0);
    } finally {
      setParallelMode('auto');
    }
    expect(parallelStats().jobs).toBe(before.jobs);
    expect(sameBytes({ ...rect, data: out }, render('off', state))).toBe(true);
  });

  it('allocates document buffers in shared memory, sharp results included', async () => {
    expect(isSharedBuffer(allocPixels(16))).toBe(true);
    expect(isSharedBuffer(renderDocument(masks()).data)).toBe(true);
    const png = await sharp({
      create: { width: 40, height: 30, channels: 4, background: { r: 200, g: 100, b: 50, alpha: 0.5 } },
    })
      .png()
      .toBuffer();
    const { raster } = await decodeImage(png);
    const pivot = { x: 20, y: 15 };
    for (const r of [
      raster,
      await scaleRaster(raster, 1.5, 0.7, pivot),
      await rotateRaster(raster, 17, pivot),
      flipRaster(raster, 'horizontal', pivot),
      renderText({
        content: '图层',
        x: 0,
        y: 0,
        size: 24,
        color: { r: 0, g: 0, b: 0 },
        font: 'Noto Sans SC',
        renderedFont: 'Noto Sans SC',
      }),
    ]) {
      expect(isSharedBuffer(r.data)).toBe(true);
    }
    const sel = rectMask({ x: 5, y: 5, w: 20, h: 10 }, 40, 30);
    for (const m of [sel, invertMask(sel), await featherMask(sel, 3, 40, 30), alphaMask(raster, 40, 30)]) {
      expect(isSharedBuffer(m.data)).toBe(true);
    }
  });

  it('stops a pool left idle, and starts it again for the next render', async () => {
    setPoolIdleMs(100);
    try {
      expect(await parallelReady()).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 400));
      expect(poolWorkers()).toBe(0);
      expect(await parallelReady()).toBeGreaterThan(0);
      // The new pool renders byte for byte as one thread does.
      const state = DOCS[0]![1]();
      expect(sameBytes(render('workers', state), render('off', state))).toBe(true);
    } finally {
      setPoolIdleMs(60_000);
      await parallelReady();
    }
  });

  it('takes workers only while the process-wide budget has room, and asks again at the next render', async () => {
    const { total, mine } = compositeBudget();
    setPoolIdleMs(50);
    try {
      expect(await parallelReady()).toBeGreaterThan(0);
      expect(Atomics.load(total, 0)).toBe(poolWorkers());
      // Retired: its workers give their places back as they are stopped.
      await until(() => poolWorkers() === 0 && Atomics.load(total, 0) === 0);
      expect(Atomics.load(mine, 0)).toBe(0);
      // Other threads' pools hold the whole budget: no pool here, renders stay right on one thread.
      Atomics.add(total, 0, 8);
      expect(await parallelReady()).toBe(0);
      expect(poolWorkers()).toBe(0);
      const state = DOCS[0]![1]();
      expect(sameBytes(render('auto', state), render('off', state))).toBe(true);
      // Room again: the next large render starts the pool.
      Atomics.sub(total, 0, 8);
      expect(await parallelReady()).toBeGreaterThan(0);
      expect(Atomics.load(total, 0)).toBe(poolWorkers());
      expect(Atomics.load(mine, 0)).toBe(poolWorkers());
    } finally {
      setPoolIdleMs(60_000);
      await parallelReady();
    }
  });

  it('gives back what a stopped thread still held', () => {
    const { total } = compositeBudget();
    const before = Atomics.load(total, 0);
    const lost = sharedCompositeBudget();
    expect(lost.total).toBe(total);
    Atomics.add(lost.total, 0, 2);
    Atomics.add(lost.mine, 0, 2);
    reclaimCompositeBudget(lost);
    expect(Atomics.load(total, 0)).toBe(before);
    expect(Atomics.load(lost.mine, 0)).toBe(0);
    reclaimCompositeBudget(lost);
    expect(Atomics.load(total, 0)).toBe(before);
  });
});

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(done()).toBe(true);
}
