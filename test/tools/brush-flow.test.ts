/**
 * The Brush tool's flow (流量), as Photoshop's: below 100 % the stroke is built from dabs a quarter of the diameter
 * apart, each laying down the flow's share of paint over what is there, so paint builds up where dabs overlap and a
 * stroke gone back over darkens, never past the tool's opacity. Checked against Skia (@napi-rs/canvas) stamping the
 * same dabs as anti-aliased discs, source over at the flow's alpha (an independent rasteriser and compositor), and
 * against the build-up worked out by hand at two pixels.
 */
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { DAB_SPACING, strokeRows } from '../../src/engine/brush.js';
import type { Raster } from '../../src/engine/model.js';
import { newSession, ok, refused } from '../support/session.js';
import { current, named } from './layer-fixtures.js';

const W = 240;
const H = 100;
const SIZE = 40;
const LINE = [
  { x: 10.5, y: 50.5 },
  { x: 210.5, y: 50.5 },
];

/** The coverage strokeRows gives over the canvas, 0–1. */
function coverage(points: typeof LINE, flow: number | undefined, hardness = 1): Float32Array {
  const region = { x: 0, y: 0, w: W, h: H };
  const rows = strokeRows({ points, size: SIZE, hardness, ...(flow !== undefined ? { flow } : {}) }, region);
  const out = new Float32Array(W * H);
  const row = new Float32Array(W);
  for (let y = 0; y < H; y++) {
    rows(y, row);
    out.set(row, y * W);
  }
  return out;
}

async function withLayer(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: W, height: H, name: '流量' });
  await ok(s, 'create_layer', { name: '笔迹' });
  return s;
}

function layer(s: Session): Raster {
  const l = named(current(s), '笔迹');
  if (l.kind !== 'pixel') throw new Error(`笔迹 is ${l.kind}`);
  return l.raster;
}

function alphaAt(r: Raster, x: number, y: number): number {
  return r.data[((y - r.y) * r.w + (x - r.x)) * 4 + 3]!;
}

describe('flow below 100 %', () => {
  it('builds the stroke from dabs a quarter of the diameter apart, as Skia stamps them at the flow', () => {
    const flow = 0.3;
    const ours = coverage(LINE, flow);
    const canvas = createCanvas(W, H);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#000';
    ctx.globalAlpha = flow;
    const gap = DAB_SPACING * SIZE;
    for (let x = LINE[0]!.x; x <= LINE[1]!.x + 1e-9; x += gap) {
      ctx.beginPath();
      ctx.arc(x, LINE[0]!.y, SIZE / 2, 0, 2 * Math.PI);
      ctx.fill();
    }
    const skia = ctx.getImageData(0, 0, W, H).data;
    let sum = 0;
    let inked = 0;
    for (let i = 0; i < W * H; i++) {
      const theirs = skia[i * 4 + 3]!;
      if (theirs === 0 && ours[i] === 0) continue;
      inked++;
      sum += Math.abs(Math.round(ours[i]! * 255) - theirs);
    }
    expect(inked).toBeGreaterThan(8000);
    // Mean within 2 levels (Skia's disc edges are anti-aliased its own way).
    expect(sum / inked).toBeLessThanOrEqual(2);
  });

  it('lays the flow’s share per dab: worked out at the middle and near the edge', () => {
    const f = 0.5;
    const ours = coverage(LINE, f);
    // Pixel (110, 50), centre 110.5: dabs 10 px apart from 10.5. Those at 100.5, 110.5 and 120.5 cover it fully
    // (within 19.5 of the 20 px radius), those at 90.5 and 130.5 half (their anti-aliased edge, exactly 20 away).
    expect(ours[50 * W + 110]).toBeCloseTo(1 - (1 - f) ** 3 * (1 - 0.5 * f) ** 2, 5);
    // Pixel (110, 68), 18 below the path: only the dab straight above reaches it (the next ones are 20.6 away).
    expect(ours[68 * W + 110]).toBeCloseTo(f, 5);
  });

  it('darkens where the stroke goes back over itself, as it does not at 100 %', () => {
    const there = coverage(LINE, 0.2);
    const back = coverage([...LINE, LINE[0]!], 0.2);
    expect(back[50 * W + 110]!).toBeGreaterThan(there[50 * W + 110]! + 0.15);
    const full = coverage([...LINE, LINE[0]!], undefined);
    expect(full[50 * W + 110]).toBe(coverage(LINE, undefined)[50 * W + 110]);
  });
});

describe('paint_stroke with flow', () => {
  it('builds up to the opacity and no further; reports the flow; 100 is the stroke as before', async () => {
    const s = await withLayer();
    const points = [...LINE, LINE[0]!, LINE[1]!, LINE[0]!];
    const out = await ok(s, 'paint_stroke', { points, size: SIZE, color: '#000000', opacity: 60, flow: 25 });
    expect(out).toMatchObject({ opacity: 60, flow: 25 });
    const centre = alphaAt(layer(s), 110, 50);
    // Gone over four times at 25 %: close to the opacity, never past it.
    expect(centre).toBeGreaterThan(0.9 * 0.6 * 255);
    expect(centre).toBeLessThanOrEqual(Math.round(0.6 * 255));
    // An edge pixel, reached by fewer dabs, is lighter: the stroke's soft look at a low flow.
    expect(alphaAt(layer(s), 110, 68)).toBeLessThan(centre - 40);

    const plain = await withLayer();
    const at100 = await ok(plain, 'paint_stroke', { points: LINE, size: SIZE, color: '#000000', flow: 100 });
    expect(at100.flow).toBeUndefined();
    const omitted = await withLayer();
    await ok(omitted, 'paint_stroke', { points: LINE, size: SIZE, color: '#000000' });
    expect(Buffer.from(layer(plain).data).equals(Buffer.from(layer(omitted).data))).toBe(true);
  });

  it('refuses a flow out of range, changing nothing', async () => {
    const s = await withLayer();
    for (const flow of [0, 101, -5]) {
      await refused(
        s,
        'paint_stroke',
        { points: LINE, size: SIZE, color: '#000000', flow },
        'invalid_arguments',
      );
    }
  });
});
