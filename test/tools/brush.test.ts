/**
 * paint_stroke, Photoshop's Brush tool, through the real Session. A hard brush's stroke is compared with Skia's
 * (@napi-rs/canvas) stroke of the same path, round caps and joins, an independent rasteriser with exact
 * anti-aliasing (ImageMagick's strokes come out a pixel wider than asked, so they are no reference for the edge):
 * the mean difference of coverage at most 2 levels, and under 1 % of the pixels more than a quarter apart. A soft
 * brush is checked for its profile; the opacity for a stroke crossing itself; the target mask, the selection and
 * bad input as Photoshop and the other painting tools have them.
 */
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { Raster } from '../../src/engine/model.js';
import { call, hashEditor, newSession, ok } from '../support/session.js';
import { current, named } from './layer-fixtures.js';

const W = 240;
const H = 160;
const PATH = [
  { x: 30.5, y: 40.5 },
  { x: 120, y: 130 },
  { x: 210.25, y: 30 },
];

async function withLayer(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: W, height: H, name: '画笔' });
  await ok(s, 'create_layer', { name: '笔迹' });
  return s;
}

function layer(s: Session, name = '笔迹'): Raster {
  const l = named(current(s), name);
  if (l.kind !== 'pixel') throw new Error(`${name} is ${l.kind}`);
  return l.raster;
}

/** The layer's alpha over the whole canvas (0 outside its raster). */
function alphaOnCanvas(r: Raster): Uint8Array {
  const out = new Uint8Array(W * H);
  for (let y = 0; y < r.h; y++) {
    for (let x = 0; x < r.w; x++) {
      const cx = r.x + x;
      const cy = r.y + y;
      if (cx >= 0 && cy >= 0 && cx < W && cy < H) out[cy * W + cx] = r.data[(y * r.w + x) * 4 + 3]!;
    }
  }
  return out;
}

/**
 * `ours` (alpha over the canvas) against Skia's coverage `skia` (RGBA) of the same shape: at least `least` pixels
 * inked, the mean difference at most 2 levels, under 1 % of the inked pixels more than a quarter apart.
 */
function expectLikeSkia(ours: Uint8Array, skia: Uint8ClampedArray, least: number): void {
  let sum = 0;
  let far = 0;
  let inked = 0;
  for (let i = 0; i < W * H; i++) {
    const d = Math.abs(ours[i]! - skia[i * 4 + 3]!);
    sum += d;
    if (d > 64) far++;
    if (ours[i]! > 0) inked++;
  }
  expect(inked).toBeGreaterThan(least);
  expect(sum / (W * H)).toBeLessThanOrEqual(2);
  expect(far / inked).toBeLessThan(0.01);
}

describe('paint_stroke draws as a brush does', () => {
  it('a hard brush: the stroke Skia draws for the same path, within a level on average', async () => {
    const s = await withLayer();
    const r = await ok(s, 'paint_stroke', { points: PATH, size: 18, color: '#1d3557' });
    expect(r).toMatchObject({ color: '#1d3557', target: 'layer', area: 'whole_layer' });
    const ours = alphaOnCanvas(layer(s));
    const canvas = createCanvas(W, H);
    const ctx = canvas.getContext('2d');
    ctx.lineWidth = 18;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.strokeStyle = '#000';
    ctx.beginPath();
    for (const [i, p] of PATH.entries()) {
      if (i === 0) ctx.moveTo(p.x, p.y);
      else ctx.lineTo(p.x, p.y);
    }
    ctx.stroke();
    expectLikeSkia(ours, ctx.getImageData(0, 0, W, H).data, 3000);
    // The colour is the one asked for wherever there is paint.
    const d = layer(s).data;
    for (let i = 0; i < d.length; i += 4)
      if (d[i + 3]! > 0) expect([d[i], d[i + 1], d[i + 2]]).toEqual([0x1d, 0x35, 0x57]);
  });

  it('a soft brush: full at the path, fading to nothing at the radius; one point is a dot', async () => {
    const s = await withLayer();
    await ok(s, 'paint_stroke', { points: [{ x: 120, y: 80 }], size: 60, hardness: 0, color: '#000000' });
    const a = alphaOnCanvas(layer(s));
    const at = (x: number, y: number) => a[y * W + x]!;
    expect(at(119, 79)).toBeGreaterThanOrEqual(250);
    // Falling off with the distance, the same every way round.
    const rightward = [5, 10, 15, 20, 25].map((d) => at(119 + d, 79));
    for (let i = 1; i < rightward.length; i++) expect(rightward[i]!).toBeLessThan(rightward[i - 1]!);
    for (const d of [5, 15, 25]) {
      expect(Math.abs(at(119 + d, 79) - at(120 - d, 79))).toBeLessThanOrEqual(2);
      expect(Math.abs(at(119, 79 + d) - at(119 + d, 79))).toBeLessThanOrEqual(2);
    }
    // Half-way out, a raised cosine is at half strength; beyond the radius, nothing.
    expect(Math.abs(at(134, 79) - 128)).toBeLessThanOrEqual(12);
    expect(at(151, 79)).toBe(0);
  });

  it('at an opacity, a stroke crossing itself is no darker where it crosses', async () => {
    const s = await withLayer();
    await ok(s, 'paint_stroke', {
      points: [
        { x: 40, y: 40 },
        { x: 200, y: 120 },
        { x: 200, y: 40 },
        { x: 40, y: 120 },
      ],
      size: 12,
      color: '#ff0000',
      opacity: 50,
    });
    const a = alphaOnCanvas(layer(s));
    // Where the two diagonals cross (120, 80), and on one of them alone.
    expect(Math.abs(a[80 * W + 120]! - 128)).toBeLessThanOrEqual(1);
    expect(Math.abs(a[60 * W + 80]! - 128)).toBeLessThanOrEqual(1);
  });

  it('inside the selection only, and on a layer mask with target mask', async () => {
    const s = await withLayer();
    await ok(s, 'select_rect', { left: 0, top: 0, right: 120, bottom: H });
    const r = await ok(s, 'paint_stroke', {
      points: [
        { x: 20, y: 80 },
        { x: 220, y: 80 },
      ],
      size: 20,
      color: '#000000',
    });
    expect(r).toMatchObject({ area: 'selection' });
    const a = alphaOnCanvas(layer(s));
    expect(a[80 * W + 100]).toBe(255);
    expect(a[80 * W + 140]).toBe(0);
    await ok(s, 'deselect');

    // On a mask: black hides where it passes, the layer's pixels untouched.
    await ok(s, 'fill_selection', { color: '#2a9d8f' });
    await ok(s, 'add_layer_mask', { name: '笔迹' });
    const pixels = layer(s).data.slice();
    await ok(s, 'paint_stroke', {
      points: [
        { x: 0, y: 20 },
        { x: W, y: 20 },
      ],
      size: 10,
      color: '#000000',
      target: 'mask',
    });
    expect(layer(s).data).toEqual(pixels);
    const mask = named(current(s), '笔迹').mask!;
    const m = (x: number, y: number) =>
      x >= mask.x && y >= mask.y && x < mask.x + mask.w && y < mask.y + mask.h
        ? mask.data[(y - mask.y) * mask.w + (x - mask.x)]!
        : mask.outside;
    expect(m(100, 19)).toBe(0);
    expect(m(100, 60)).toBe(255);
  });

  it('pen pressure sets the diameter at each point, changing along the way: the union of the discs Skia fills', async () => {
    const s = await withLayer();
    // Pressed hard at the start, lightly at the end: a stroke tapering from 60 px across to 15.
    const [a, b] = [
      { x: 40.5, y: 80, pressure: 1 },
      { x: 200.5, y: 80, pressure: 0.25 },
    ];
    const r = await ok(s, 'paint_stroke', { points: [a, b], size: 60, color: '#1d3557' });
    expect(r.pressure).toEqual({ min: 0.25, max: 1, sets: 'size' });
    const ours = alphaOnCanvas(layer(s));
    // The reference: the two end discs and the band tangent to both, one path filled (nonzero: their union, with
    // Skia's exact anti-aliasing). The band touches each disc where the radius's slope along the path says.
    const [ra, rb] = [30, 7.5];
    const cos = (ra - rb) / (b.x - a.x);
    const sin = Math.sqrt(1 - cos * cos);
    const canvas = createCanvas(W, H);
    const ctx = canvas.getContext('2d');
    ctx.beginPath();
    ctx.arc(a.x, a.y, ra, 0, Math.PI * 2);
    ctx.moveTo(b.x + rb, b.y);
    ctx.arc(b.x, b.y, rb, 0, Math.PI * 2);
    ctx.moveTo(a.x + ra * cos, a.y - ra * sin);
    ctx.lineTo(b.x + rb * cos, b.y - rb * sin);
    ctx.lineTo(b.x + rb * cos, b.y + rb * sin);
    ctx.lineTo(a.x + ra * cos, a.y + ra * sin);
    ctx.closePath();
    ctx.fill();
    expectLikeSkia(ours, ctx.getImageData(0, 0, W, H).data, 4000);
    // Half-way, the stroke is as wide as the pressure there says (0.625 × 60 = 37.5 px; across the taper a little
    // more, 37.5 / sin), give or take the anti-aliased edge.
    const column = (x: number) =>
      Array.from({ length: H }, (_, y) => ours[y * W + x]! / 255).reduce((p, q) => p + q);
    expect(Math.abs(column(120) - 37.5 / sin)).toBeLessThanOrEqual(1.5);

    // Every point at full pressure: the stroke without pressure, byte for byte.
    const plain = await withLayer();
    await ok(plain, 'paint_stroke', { points: PATH, size: 18, color: '#1d3557' });
    const full = await withLayer();
    await ok(full, 'paint_stroke', {
      points: PATH.map((p) => ({ ...p, pressure: 1 })),
      size: 18,
      color: '#1d3557',
    });
    expect(Buffer.compare(Buffer.from(layer(full).data), Buffer.from(layer(plain).data))).toBe(0);

    // No pressure anywhere: nothing to paint, no history step; a pressure past 1: refused, nothing changed.
    const kept = hashEditor(s.editor.snapshot);
    const none = await ok(s, 'paint_stroke', {
      points: [
        { x: 20, y: 20, pressure: 0 },
        { x: 60, y: 20, pressure: 0 },
      ],
      size: 30,
      color: '#000000',
    });
    expect(none.changed).toBe(false);
    const over = await call(s, 'paint_stroke', {
      points: [{ x: 20, y: 20, pressure: 1.5 }],
      size: 30,
      color: '#000000',
    });
    expect(over.ok).toBe(false);
    if (!over.ok) expect(over.error.message).toMatch(/^points\[0\]\.pressure /);
    expect(hashEditor(s.editor.snapshot)).toBe(kept);
  });

  it('pen pressure may set the strength instead, or both: the stroke fades along the way', async () => {
    const points = [
      { x: 40.5, y: 80, pressure: 1 },
      { x: 200.5, y: 80, pressure: 0.25 },
    ];
    const alphaOf = async (pressure_sets?: string) => {
      const s = await withLayer();
      const r = await ok(s, 'paint_stroke', {
        points,
        size: 40,
        color: '#1d3557',
        ...(pressure_sets ? { pressure_sets } : {}),
      });
      expect((r.pressure as { sets: string }).sets).toBe(pressure_sets ?? 'size');
      return alphaOnCanvas(layer(s));
    };
    const column = (a: Uint8Array, x: number) => Array.from({ length: H }, (_, y) => a[y * W + x]!);
    const width = (a: Uint8Array, x: number) => column(a, x).reduce((p, q) => p + q, 0) / 255;
    const centre = (a: Uint8Array, x: number) => a[79 * W + x]!;
    // Strength: as wide all along (40 px), the centre as strong as the pressure there (a quarter at the end).
    const faded = await alphaOf('opacity');
    expect(Math.abs(width(faded, 60) / (centre(faded, 60) / 255) - 40)).toBeLessThanOrEqual(1.5);
    expect(Math.abs(width(faded, 180) / (centre(faded, 180) / 255) - 40)).toBeLessThanOrEqual(1.5);
    const at = (x: number) => 1 - 0.75 * ((x + 0.5 - 40.5) / 160);
    for (const x of [60, 120, 180]) expect(Math.abs(centre(faded, x) - 255 * at(x))).toBeLessThanOrEqual(3);
    // Both: narrower and fainter along the way; size (the default) as before, full strength.
    const both = await alphaOf('both');
    const sized = await alphaOf();
    expect(centre(sized, 180)).toBe(255);
    expect(Math.abs(centre(both, 180) - 255 * at(180))).toBeLessThanOrEqual(3);
    expect(Math.abs(width(both, 180) / (centre(both, 180) / 255) - width(sized, 180))).toBeLessThanOrEqual(
      1.5,
    );
    expect(width(sized, 180)).toBeLessThan(width(sized, 60) - 15);

    // A pen's many short segments, lifting all the way: off the path as on it, each pixel as strong as the pressure
    // where the path passes it — no plateau (a ring) where one segment's round end reaches into the next, fainter
    // one (each pixel takes the dab reaching it deepest, not the strongest one).
    const s = await withLayer();
    const many = Array.from({ length: 9 }, (_, i) => ({ x: 40.5 + i * 20, y: 80, pressure: 1 - i * 0.1 }));
    await ok(s, 'paint_stroke', { points: many, size: 40, color: '#1d3557', pressure_sets: 'opacity' });
    const a = alphaOnCanvas(layer(s));
    const strength = (x: number) => 255 * (1 - (0.1 * (x + 0.5 - 40.5)) / 20);
    for (const y of [79, 70, 64]) {
      for (let x = 45; x < 196; x++) {
        expect(Math.abs(a[y * W + x]! - strength(x)), `${x}, ${y}`).toBeLessThanOrEqual(2);
      }
    }
  });

  it('bad input is refused with a clear error and leaves the document as it was', async () => {
    const s = await withLayer();
    const base = { points: PATH, size: 10, color: '#000000' };
    const kept = hashEditor(s.editor.snapshot);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, points: [] }, /^points 为空/],
      [{ ...base, size: 0 }, /^size /],
      [{ ...base, size: 5001 }, /^size /],
      [{ ...base, hardness: 120 }, /^hardness /],
      [{ ...base, color: 'blue' }, /^color /],
      [{ ...base, target: 'mask' }, /add_layer_mask/],
      [{ ...base, points: [{ x: 1e9, y: 0 }] }, /^points\[0\]\.x 超出范围/],
    ];
    for (const [args, message] of cases) {
      const r = await call(s, 'paint_stroke', args);
      expect(r.ok, JSON.stringify(args)).toBe(false);
      if (!r.ok) expect(`${r.error.message} ${r.error.hint ?? ''}`).toMatch(message);
      expect(hashEditor(s.editor.snapshot)).toBe(kept);
    }
    // Off the canvas entirely: nothing painted, said so, no history step.
    const off = await ok(s, 'paint_stroke', { ...base, points: [{ x: -500, y: -500 }] });
    expect(off.changed).toBe(false);
    expect(hashEditor(s.editor.snapshot)).toBe(kept);
  });
});
